/**
 * Schema version 6: `append_intent` takes the entity's decision lock itself (replacing the
 * function of version 2, which is otherwise restated unchanged). payops' own decisions already ran
 * under that lock; now a member who calls the function directly (psql, another client, any
 * isolation level) waits for the decision in progress and is judged by `check_limits` against a
 * total that includes it: two direct calls at once can no longer both pass a daily-max that only
 * one of them fits under. The lock is transaction-scoped: it is released when the caller commits.
 */
export const V_DECIDE_LOCK = `
CREATE OR REPLACE FUNCTION payops.append_intent(p_entity text, p_kind text, p_currency text, p_amount bigint,
  p_destination text, p_status text, p_detail jsonb) RETURNS payops.intents
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  rec payops.intents;
BEGIN
  PERFORM payops.require_role('record an intent', 'payops_member', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  PERFORM pg_advisory_xact_lock(hashtextextended('payops:decide:' || p_entity, 0));
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
