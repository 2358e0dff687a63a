/**
 * Members without the key (schema version 6 of the team store; in this file's order, the next
 * version): a member's money request is an approval request of kind `move.create` or
 * `transfer.create` (its maker the role that logged in, its parameters and Idempotency-Key in its
 * detail); another member approves it with `decide_approval`; the worker, where the key lives,
 * claims it (`claim_request`) and records what became of it (`record_execution`). A request is
 * claimed once: a claim without a final outcome is resumed (never sent twice without proof), and
 * a request approved by its own maker is never claimed.
 */
export const V_MEMBER_REQUESTS = `
CREATE TABLE payops.executions (
  request_id bigint PRIMARY KEY REFERENCES payops.approval_requests (id),
  at timestamptz NOT NULL DEFAULT now(),
  worker text NOT NULL,
  idempotency_key text NOT NULL
);

CREATE TABLE payops.execution_outcomes (
  seq bigserial PRIMARY KEY,
  request_id bigint NOT NULL REFERENCES payops.executions (request_id),
  at timestamptz NOT NULL DEFAULT now(),
  worker text NOT NULL,
  status text NOT NULL CHECK (status IN ('carried_out', 'failed', 'unknown')),
  resource_id text,
  detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX execution_outcomes_request ON payops.execution_outcomes (request_id, seq);

-- Claims an approved money request for the worker that calls it: 'first' (claimed now) or
-- 'resume' (claimed before, by this or another worker, without a final outcome: it may have been
-- sent). Refuses a request not approved, approved by its maker, or already carried out or failed.
CREATE FUNCTION payops.claim_request(p_entity text, p_request bigint)
  RETURNS TABLE (attempt text, claimed_at timestamptz, claimed_by text, idempotency_key text)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  req payops.approval_requests;
  dec payops.approval_decisions;
  ex payops.executions;
  last_status text;
  key text;
BEGIN
  PERFORM payops.require_role('carry out a request', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  SELECT * INTO req FROM payops.approval_requests WHERE id = p_request AND entity = p_entity FOR UPDATE;
  IF NOT FOUND OR req.kind NOT IN ('move.create', 'transfer.create') THEN
    RAISE EXCEPTION 'no money request %', p_request USING ERRCODE = 'P0001', HINT = 'payops:not-found';
  END IF;
  SELECT * INTO dec FROM payops.approval_decisions WHERE request_id = p_request;
  IF NOT FOUND OR dec.decision <> 'approved' THEN
    RAISE EXCEPTION 'money request % is not approved', p_request USING ERRCODE = 'P0001', HINT = 'payops:conflict';
  END IF;
  IF dec.checker = req.maker THEN
    RAISE EXCEPTION 'money request % was approved by its own maker %', p_request, req.maker USING ERRCODE = 'insufficient_privilege';
  END IF;
  key := req.detail->>'idempotency_key';
  IF key IS NULL OR key = '' THEN
    RAISE EXCEPTION 'money request % has no Idempotency-Key', p_request USING ERRCODE = 'P0001', HINT = 'payops:conflict';
  END IF;
  SELECT status INTO last_status FROM payops.execution_outcomes WHERE request_id = p_request ORDER BY seq DESC LIMIT 1;
  IF last_status IN ('carried_out', 'failed') THEN
    RAISE EXCEPTION 'money request % is already %', p_request, replace(last_status, '_', ' ') USING ERRCODE = 'P0001', HINT = 'payops:conflict';
  END IF;
  SELECT * INTO ex FROM payops.executions WHERE request_id = p_request;
  IF FOUND THEN
    RETURN QUERY SELECT 'resume'::text, ex.at, ex.worker, ex.idempotency_key;
    RETURN;
  END IF;
  INSERT INTO payops.executions (request_id, worker, idempotency_key) VALUES (p_request, session_user, key) RETURNING * INTO ex;
  RETURN QUERY SELECT 'first'::text, ex.at, ex.worker, ex.idempotency_key;
END $$;

-- What became of a claimed request: carried_out and failed are final; unknown is resumed later.
CREATE FUNCTION payops.record_execution(p_entity text, p_request bigint, p_status text, p_resource text, p_detail jsonb)
  RETURNS payops.execution_outcomes
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  rec payops.execution_outcomes;
  last_status text;
BEGIN
  PERFORM payops.require_role('record what became of a request', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  PERFORM 1 FROM payops.executions e JOIN payops.approval_requests r ON r.id = e.request_id
    WHERE e.request_id = p_request AND r.entity = p_entity FOR UPDATE OF e;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'money request % was not claimed', p_request USING ERRCODE = 'P0001', HINT = 'payops:not-found';
  END IF;
  SELECT status INTO last_status FROM payops.execution_outcomes WHERE request_id = p_request ORDER BY seq DESC LIMIT 1;
  IF last_status IN ('carried_out', 'failed') THEN
    RAISE EXCEPTION 'money request % is already %', p_request, replace(last_status, '_', ' ') USING ERRCODE = 'P0001', HINT = 'payops:conflict';
  END IF;
  INSERT INTO payops.execution_outcomes (request_id, worker, status, resource_id, detail)
  VALUES (p_request, session_user, p_status, p_resource, coalesce(p_detail, '{}'))
  RETURNING * INTO rec;
  RETURN rec;
END $$;

REVOKE ALL ON payops.executions, payops.execution_outcomes FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA payops FROM PUBLIC;
REVOKE ALL ON FUNCTION payops.claim_request(text, bigint), payops.record_execution(text, bigint, text, text, jsonb) FROM PUBLIC;
GRANT SELECT ON payops.executions, payops.execution_outcomes TO payops_member, payops_worker, payops_admin;
GRANT EXECUTE ON FUNCTION payops.claim_request(text, bigint), payops.record_execution(text, bigint, text, text, jsonb) TO payops_worker;
`
