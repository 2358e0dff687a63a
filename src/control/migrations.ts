/**
 * The team store's schema in PostgreSQL, as versioned SQL (never edited once shipped: a change is
 * a new version). `team init` applies the versions a database has not seen, each in its own
 * transaction, under a session advisory lock, so two inits started at once apply each version
 * exactly once. Everything lives in the schema `payops`, owned by the role that ran `team init`.
 *
 * Integrity: members hold no INSERT, UPDATE or DELETE on any table. Records are appended only
 * through SECURITY DEFINER functions that stamp `session_user` (the role that logged in, which
 * `SET ROLE` does not change) as the actor and check the caller's group role themselves; nothing
 * can change or delete a record once written (only the owner could, and it runs no payops command
 * as a member).
 */
import {PG_RECORDS} from './migration-records.js'
import {V_MEMBER_REQUESTS} from './migrations-requests.js'
import {V_DECIDE_LOCK} from './migration-decide-lock.js'
import {V_IMPORT_BATCHES} from './migration-import-batches.js'

/** The advisory lock key `team init` holds while it migrates (one per database). */
export const MIGRATION_LOCK = 7_431_902_117

/** The group roles `team init` creates (NOLOGIN: an administrator grants them to login roles). */
export const TEAM_ROLES = ['payops_member', 'payops_worker', 'payops_admin'] as const
export type TeamRole = (typeof TEAM_ROLES)[number]

/** Creates a group role unless it exists (roles are the cluster's: another database's init may race). */
export function createRoleSql(role: TeamRole): string {
  return `DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role}') THEN
    CREATE ROLE ${role} NOLOGIN;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END $$`
}

const V1 = `
REVOKE ALL ON SCHEMA payops FROM PUBLIC;

CREATE TABLE payops.binding (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  entity text NOT NULL,
  bound_at timestamptz NOT NULL DEFAULT now(),
  bound_by text NOT NULL DEFAULT session_user
);

CREATE TABLE payops.intents (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  day date NOT NULL,
  actor text NOT NULL,
  entity text NOT NULL,
  kind text NOT NULL,
  currency text NOT NULL,
  amount bigint NOT NULL CHECK (amount >= 0),
  destination text,
  status text NOT NULL CHECK (status IN ('allowed', 'refused')),
  detail jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE payops.outcomes (
  seq bigserial PRIMARY KEY,
  intent_seq bigint NOT NULL REFERENCES payops.intents (seq),
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL,
  status text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE payops.daily_totals (
  entity text NOT NULL,
  day date NOT NULL,
  currency text NOT NULL,
  total bigint NOT NULL,
  last_seq bigint NOT NULL,
  PRIMARY KEY (entity, day, currency)
);

CREATE TABLE payops.policies (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL,
  key text NOT NULL,
  value jsonb
);

CREATE TABLE payops.approval_requests (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  maker text NOT NULL,
  entity text NOT NULL,
  kind text NOT NULL,
  currency text NOT NULL,
  amount bigint NOT NULL CHECK (amount >= 0),
  destination text,
  detail jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE payops.approval_decisions (
  request_id bigint PRIMARY KEY REFERENCES payops.approval_requests (id),
  at timestamptz NOT NULL DEFAULT now(),
  checker text NOT NULL,
  decision text NOT NULL CHECK (decision IN ('approved', 'rejected')),
  note text
);

-- Whether the role that logged in is in one of the given group roles (directly or not).
CREATE FUNCTION payops.caller_in(variadic roles text[]) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM unnest(roles) r WHERE pg_has_role(session_user, r, 'MEMBER'))
$$;

CREATE FUNCTION payops.require_role(what text, variadic roles text[]) RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
BEGIN
  IF NOT payops.caller_in(variadic roles) THEN
    RAISE EXCEPTION 'role % may not %: it needs %', session_user, what, array_to_string(roles, ' or ')
      USING ERRCODE = 'insufficient_privilege';
  END IF;
END $$;

CREATE FUNCTION payops.require_entity(p_entity text) RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM payops.binding WHERE entity = p_entity) THEN
    RAISE EXCEPTION 'this team store serves another entity' USING ERRCODE = 'P0001', HINT = 'payops:entity';
  END IF;
END $$;

-- The store's day: the server's date in UTC at the start of the transaction.
CREATE FUNCTION payops.today() RETURNS date
LANGUAGE sql STABLE AS $$ SELECT (now() AT TIME ZONE 'UTC')::date $$;

-- The team's policies, enforced by the store itself: an allowed intent over them is refused,
-- whatever the client checked.
CREATE FUNCTION payops.policy(p_key text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT value FROM payops.policies WHERE key = p_key ORDER BY seq DESC LIMIT 1
$$;

CREATE FUNCTION payops.check_limits(p_entity text, p_currency text, p_amount bigint, p_destination text) RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  pol jsonb;
  so_far bigint;
BEGIN
  pol := payops.policy('max-amount');
  IF jsonb_typeof(pol) = 'object' AND pol <> '{}'::jsonb
     AND (NOT pol ? p_currency OR p_amount > (pol->>p_currency)::bigint) THEN
    RAISE EXCEPTION '% % (minor units) is over the team''s max-amount', p_amount, p_currency
      USING ERRCODE = 'P0001', HINT = 'payops:limit';
  END IF;
  pol := payops.policy('allowed-destinations');
  IF jsonb_typeof(pol) = 'array' AND jsonb_array_length(pol) > 0
     AND (p_destination IS NULL OR NOT pol ? p_destination) THEN
    RAISE EXCEPTION 'destination % is not in the team''s allowed-destinations', coalesce(p_destination, '(none)')
      USING ERRCODE = 'P0001', HINT = 'payops:limit';
  END IF;
  pol := payops.policy('daily-max');
  IF jsonb_typeof(pol) = 'object' AND pol ? p_currency THEN
    SELECT total INTO so_far FROM payops.daily_totals
      WHERE entity = p_entity AND day = payops.today() AND currency = p_currency;
    IF coalesce(so_far, 0) + p_amount > (pol->>p_currency)::bigint THEN
      RAISE EXCEPTION '% % (minor units) would take today''s total past the team''s daily-max', p_amount, p_currency
        USING ERRCODE = 'P0001', HINT = 'payops:limit';
    END IF;
  END IF;
END $$;

CREATE FUNCTION payops.append_intent(p_entity text, p_kind text, p_currency text, p_amount bigint,
  p_destination text, p_status text, p_detail jsonb) RETURNS payops.intents
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  rec payops.intents;
BEGIN
  PERFORM payops.require_role('record an intent', 'payops_member', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  IF p_status = 'allowed' THEN
    PERFORM payops.check_limits(p_entity, p_currency, p_amount, p_destination);
  END IF;
  INSERT INTO payops.intents (day, actor, entity, kind, currency, amount, destination, status, detail)
  VALUES (payops.today(), session_user, p_entity, p_kind, p_currency, p_amount, p_destination, p_status, coalesce(p_detail, '{}'))
  RETURNING * INTO rec;
  IF p_status = 'allowed' THEN
    INSERT INTO payops.daily_totals AS t (entity, day, currency, total, last_seq)
    VALUES (p_entity, rec.day, p_currency, p_amount, rec.seq)
    ON CONFLICT (entity, day, currency) DO UPDATE SET total = t.total + excluded.total, last_seq = excluded.last_seq;
  END IF;
  RETURN rec;
END $$;

CREATE FUNCTION payops.record_outcome(p_intent bigint, p_status text, p_detail jsonb) RETURNS payops.outcomes
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  rec payops.outcomes;
BEGIN
  PERFORM payops.require_role('record an outcome', 'payops_member', 'payops_worker');
  INSERT INTO payops.outcomes (intent_seq, actor, status, detail)
  VALUES (p_intent, session_user, p_status, coalesce(p_detail, '{}'))
  RETURNING * INTO rec;
  RETURN rec;
END $$;

CREATE FUNCTION payops.set_policy(p_key text, p_value jsonb) RETURNS payops.policies
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  rec payops.policies;
BEGIN
  PERFORM payops.require_role('set a policy', 'payops_admin');
  INSERT INTO payops.policies (actor, key, value) VALUES (session_user, p_key, p_value) RETURNING * INTO rec;
  RETURN rec;
END $$;

CREATE FUNCTION payops.request_approval(p_entity text, p_kind text, p_currency text, p_amount bigint,
  p_destination text, p_detail jsonb) RETURNS payops.approval_requests
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  rec payops.approval_requests;
BEGIN
  PERFORM payops.require_role('request an approval', 'payops_member');
  PERFORM payops.require_entity(p_entity);
  INSERT INTO payops.approval_requests (maker, entity, kind, currency, amount, destination, detail)
  VALUES (session_user, p_entity, p_kind, p_currency, p_amount, p_destination, coalesce(p_detail, '{}'))
  RETURNING * INTO rec;
  RETURN rec;
END $$;

CREATE FUNCTION payops.decide_approval(p_request bigint, p_decision text, p_note text) RETURNS payops.approval_decisions
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  req payops.approval_requests;
  rec payops.approval_decisions;
BEGIN
  PERFORM payops.require_role('decide an approval', 'payops_member');
  SELECT * INTO req FROM payops.approval_requests WHERE id = p_request FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'no approval request %', p_request USING ERRCODE = 'P0001', HINT = 'payops:not-found';
  END IF;
  IF req.maker = session_user THEN
    RAISE EXCEPTION 'role % made request % and may not decide it', session_user, p_request
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF EXISTS (SELECT 1 FROM payops.approval_decisions WHERE request_id = p_request) THEN
    RAISE EXCEPTION 'approval request % is already decided', p_request USING ERRCODE = 'P0001', HINT = 'payops:conflict';
  END IF;
  INSERT INTO payops.approval_decisions (request_id, checker, decision, note)
  VALUES (p_request, session_user, p_decision, p_note)
  RETURNING * INTO rec;
  RETURN rec;
END $$;

-- Functions are executable by PUBLIC when created: these are not (nor, for this role, later ones).
-- A later version run by another role must revoke EXECUTE from PUBLIC on its functions itself.
ALTER DEFAULT PRIVILEGES IN SCHEMA payops REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA payops FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA payops FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA payops FROM PUBLIC;
GRANT USAGE ON SCHEMA payops TO payops_member, payops_worker, payops_admin;
GRANT SELECT ON ALL TABLES IN SCHEMA payops TO payops_member, payops_worker, payops_admin;
GRANT EXECUTE ON FUNCTION payops.caller_in(text[]), payops.today(), payops.policy(text) TO payops_member, payops_worker, payops_admin;
GRANT EXECUTE ON FUNCTION payops.append_intent(text, text, text, bigint, text, text, jsonb),
  payops.record_outcome(bigint, text, jsonb) TO payops_member, payops_worker;
GRANT EXECUTE ON FUNCTION payops.request_approval(text, text, text, bigint, text, jsonb),
  payops.decide_approval(bigint, text, text) TO payops_member;
GRANT EXECUTE ON FUNCTION payops.set_policy(text, jsonb) TO payops_admin;
`

/**
 * Intents that move nothing (a cancel: no amount, no destination) are recorded without the
 * policy checks: an allow-list must not stop a cancel. Everything else is checked as before (a
 * create held for approval records 0 towards the day's total, and its destination is checked).
 */
const V2_INTENTS_THAT_MOVE_NOTHING = `
CREATE OR REPLACE FUNCTION payops.append_intent(p_entity text, p_kind text, p_currency text, p_amount bigint,
  p_destination text, p_status text, p_detail jsonb) RETURNS payops.intents
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  rec payops.intents;
BEGIN
  PERFORM payops.require_role('record an intent', 'payops_member', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  IF p_status = 'allowed' AND (p_amount <> 0 OR p_destination IS NOT NULL) THEN
    PERFORM payops.check_limits(p_entity, p_currency, p_amount, p_destination);
  END IF;
  INSERT INTO payops.intents (day, actor, entity, kind, currency, amount, destination, status, detail)
  VALUES (payops.today(), session_user, p_entity, p_kind, p_currency, p_amount, p_destination, p_status, coalesce(p_detail, '{}'))
  RETURNING * INTO rec;
  IF p_status = 'allowed' THEN
    INSERT INTO payops.daily_totals AS t (entity, day, currency, total, last_seq)
    VALUES (p_entity, rec.day, p_currency, p_amount, rec.seq)
    ON CONFLICT (entity, day, currency) DO UPDATE SET total = t.total + excluded.total, last_seq = excluded.last_seq;
  END IF;
  RETURN rec;
END $$;
`


/** Each version's SQL, in order. Version N is `PG_MIGRATIONS[N - 1]`. */
// 4: reconciliation decisions, names, watch alerts; 5: members' money requests and their execution;
// 6: append_intent takes the entity's decision lock itself.
export const PG_MIGRATIONS: readonly string[] = [V1, V2_INTENTS_THAT_MOVE_NOTHING, V_IMPORT_BATCHES, PG_RECORDS, V_MEMBER_REQUESTS, V_DECIDE_LOCK]

/** The schema and its table of applied versions, made before the first version (under the lock). */
export const BOOTSTRAP = `CREATE SCHEMA IF NOT EXISTS payops;
CREATE TABLE IF NOT EXISTS payops.schema_versions (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now(),
  applied_by text NOT NULL DEFAULT session_user
)`
