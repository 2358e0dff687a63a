/**
 * The schema of the operator's records in the control store (src/control/records-types.ts):
 * reconciliation decisions, the book of names and `watch`'s alert state. In PostgreSQL they are
 * append-only tables written only through SECURITY DEFINER functions that stamp `session_user`,
 * like the controls' (src/control/migrations.ts): members hold SELECT and nothing else, so none can
 * write a record in another's name, nor change or delete one.
 */

/** PostgreSQL: the tables, their functions and grants (one schema version). */
export const PG_RECORDS = `
CREATE TABLE payops.resolutions (
  seq bigserial PRIMARY KEY,
  entity text NOT NULL,
  key text NOT NULL,
  label text NOT NULL,
  note text,
  decided_at timestamptz NOT NULL,
  profile text,
  moved boolean NOT NULL DEFAULT false,
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL
);
CREATE INDEX resolutions_key ON payops.resolutions (entity, key, decided_at, seq);

CREATE TABLE payops.names (
  seq bigserial PRIMARY KEY,
  entity text NOT NULL,
  id text NOT NULL,
  name text NOT NULL,
  kind text,
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL
);
CREATE INDEX names_id ON payops.names (entity, id, seq);

CREATE TABLE payops.alert_events (
  seq bigserial PRIMARY KEY,
  entity text NOT NULL,
  def text NOT NULL,
  key text NOT NULL,
  rule text NOT NULL,
  event text NOT NULL CHECK (event IN ('fired', 'cleared')),
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL
);
CREATE INDEX alert_events_def ON payops.alert_events (entity, def, key, seq);

-- A decision on a reconciliation exception; the store's time, or (p_moved: moved from a machine's
-- books.sqlite) the time it was decided there, once: the same decision moved again is not recorded.
CREATE FUNCTION payops.resolve_item(p_entity text, p_key text, p_label text, p_note text, p_decided_at timestamptz,
  p_profile text, p_moved boolean) RETURNS payops.resolutions
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  rec payops.resolutions;
BEGIN
  PERFORM payops.require_role('record a reconciliation decision', 'payops_member');
  PERFORM payops.require_entity(p_entity);
  IF length(p_key) > 500 OR length(p_label) > 64 OR length(coalesce(p_note, '')) > 500 THEN
    RAISE EXCEPTION 'a reconciliation decision too long to record' USING ERRCODE = 'P0001', HINT = 'payops:conflict';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('payops:resolve:' || p_entity || ':' || p_key, 0));
  IF p_moved THEN
    SELECT * INTO rec FROM payops.resolutions WHERE entity = p_entity AND key = p_key AND label = p_label
      AND note IS NOT DISTINCT FROM p_note AND decided_at = p_decided_at LIMIT 1;
    IF FOUND THEN
      RETURN rec;
    END IF;
  END IF;
  INSERT INTO payops.resolutions (entity, key, label, note, decided_at, profile, moved, actor)
  VALUES (p_entity, p_key, p_label, p_note, CASE WHEN p_moved THEN p_decided_at ELSE clock_timestamp() END, p_profile, p_moved, session_user)
  RETURNING * INTO rec;
  RETURN rec;
END $$;

-- Names of ids, as the service gave them; one the book already holds as it is is not recorded again,
-- and a kind the book knows is kept when the caller does not know it.
CREATE FUNCTION payops.remember_names(p_entity text, p_names jsonb) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
BEGIN
  PERFORM payops.require_role('record a name', 'payops_member', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  PERFORM pg_advisory_xact_lock(hashtextextended('payops:names:' || p_entity, 0));
  INSERT INTO payops.names (entity, id, name, kind, actor)
  SELECT p_entity, x.id, x.name, coalesce(x.kind, l.kind), session_user
  FROM (SELECT DISTINCT ON (y.id) y.* FROM jsonb_to_recordset(p_names) AS y(id text, name text, kind text, n integer) ORDER BY y.id, y.n DESC) x
  LEFT JOIN LATERAL (SELECT n.name, n.kind FROM payops.names n WHERE n.entity = p_entity AND n.id = x.id ORDER BY n.seq DESC LIMIT 1) l ON true
  WHERE x.id IS NOT NULL AND x.name IS NOT NULL AND length(x.id) <= 200 AND length(x.name) <= 2000
    AND (l.name IS NULL OR l.name <> x.name OR l.kind IS DISTINCT FROM coalesce(x.kind, l.kind));
END $$;

-- One cycle of one watch rule: fires what is crossed and not active, clears what is active and no
-- longer crossed, under a lock per rule, and returns what fired (so two watches never both fire it).
CREATE FUNCTION payops.watch_cycle(p_entity text, p_rule text, p_def text, p_crossed text[]) RETURNS SETOF text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
BEGIN
  PERFORM payops.require_role('record watch alerts', 'payops_member', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  PERFORM pg_advisory_xact_lock(hashtextextended('payops:watch:' || p_entity || ':' || p_def, 0));
  RETURN QUERY
  WITH latest AS (
    SELECT DISTINCT ON (e.key) e.key, e.event FROM payops.alert_events e WHERE e.entity = p_entity AND e.def = p_def ORDER BY e.key, e.seq DESC
  ), cleared AS (
    INSERT INTO payops.alert_events (entity, def, key, rule, event, actor)
    SELECT p_entity, p_def, l.key, p_rule, 'cleared', session_user FROM latest l WHERE l.event = 'fired' AND NOT (l.key = ANY (p_crossed))
  ), fired AS (
    INSERT INTO payops.alert_events (entity, def, key, rule, event, actor)
    SELECT p_entity, p_def, c.k, p_rule, 'fired', session_user FROM (SELECT DISTINCT unnest(p_crossed) AS k) c
    WHERE NOT EXISTS (SELECT 1 FROM latest l WHERE l.key = c.k AND l.event = 'fired')
    RETURNING alert_events.key
  )
  SELECT f.key FROM fired f;
END $$;

-- Alerts active on a machine (its watch.sqlite), moved once: one already active is not recorded again.
CREATE FUNCTION payops.move_alerts(p_entity text, p_alerts jsonb) RETURNS integer
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  moved integer;
BEGIN
  PERFORM payops.require_role('record watch alerts', 'payops_member', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  PERFORM pg_advisory_xact_lock(hashtextextended('payops:watch:' || p_entity || ':' || d.def, 0))
    FROM (SELECT DISTINCT y.def FROM jsonb_to_recordset(p_alerts) AS y(def text) ORDER BY 1) d;
  WITH x AS (
    SELECT DISTINCT ON (y.def, y.key) y.def, y.key, y.rule FROM jsonb_to_recordset(p_alerts) AS y(def text, key text, rule text)
  ), ins AS (
    INSERT INTO payops.alert_events (entity, def, key, rule, event, actor)
    SELECT p_entity, x.def, x.key, x.rule, 'fired', session_user FROM x
    WHERE NOT EXISTS (SELECT 1 FROM (SELECT e.event FROM payops.alert_events e WHERE e.entity = p_entity AND e.def = x.def AND e.key = x.key ORDER BY e.seq DESC LIMIT 1) l
      WHERE l.event = 'fired')
    RETURNING 1
  )
  SELECT count(*) INTO moved FROM ins;
  RETURN moved;
END $$;

REVOKE ALL ON payops.resolutions, payops.names, payops.alert_events FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA payops FROM PUBLIC;
REVOKE ALL ON FUNCTION payops.resolve_item(text, text, text, text, timestamptz, text, boolean), payops.remember_names(text, jsonb),
  payops.watch_cycle(text, text, text, text[]), payops.move_alerts(text, jsonb) FROM PUBLIC;
GRANT SELECT ON payops.resolutions, payops.names, payops.alert_events TO payops_member, payops_worker, payops_admin;
GRANT EXECUTE ON FUNCTION payops.resolve_item(text, text, text, text, timestamptz, text, boolean) TO payops_member;
GRANT EXECUTE ON FUNCTION payops.remember_names(text, jsonb), payops.watch_cycle(text, text, text, text[]),
  payops.move_alerts(text, jsonb) TO payops_member, payops_worker;
`

/** SQLite (controls.sqlite): the same records on one machine, stamped with the local operator. */
export const SQLITE_RECORDS = `CREATE TABLE resolutions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, label TEXT NOT NULL, note TEXT, decided_at TEXT NOT NULL, profile TEXT,
    moved INTEGER NOT NULL DEFAULT 0, at TEXT NOT NULL, actor TEXT NOT NULL);
  CREATE INDEX resolutions_key ON resolutions (key, decided_at, seq);
  CREATE TABLE names (id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT, seq INTEGER NOT NULL) WITHOUT ROWID;
  CREATE INDEX names_seq ON names (seq);
  CREATE TABLE names_shared (store TEXT PRIMARY KEY, pulled INTEGER NOT NULL, pushed INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE alerts (scope TEXT NOT NULL, key TEXT NOT NULL, rule TEXT NOT NULL, def TEXT NOT NULL, active INTEGER NOT NULL, fired_at TEXT NOT NULL,
    cleared_at TEXT, fired INTEGER NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID;`
