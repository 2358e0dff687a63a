/**
 * Import batches: a batch is recorded with the digest of the rows it pays, and its journal (each
 * key sent and what became of it) is appended as rows go, so that the same payroll is refused on
 * every member's machine and an interrupted batch resumes on another, exactly once.
 */
export const V_IMPORT_BATCHES = `
CREATE TABLE payops.import_batches (
  seq bigserial PRIMARY KEY,
  entity text NOT NULL,
  digest text NOT NULL,
  batch_id text NOT NULL,
  file text NOT NULL,
  row_count integer NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL
);
CREATE INDEX import_batches_digest ON payops.import_batches (entity, digest, seq);
CREATE INDEX import_batches_batch ON payops.import_batches (batch_id, seq);

CREATE TABLE payops.import_finished (
  batch_id text PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL
);

CREATE TABLE payops.import_rows (
  seq bigserial PRIMARY KEY,
  batch_id text NOT NULL,
  key text NOT NULL,
  fp text NOT NULL,
  line integer NOT NULL,
  n integer NOT NULL,
  state text NOT NULL CHECK (state IN ('sent', 'done', 'open', 'failed')),
  kind text,
  move_id text,
  move_status text,
  http_status integer,
  warning text,
  error_status integer,
  error_code text,
  message text,
  at timestamptz NOT NULL DEFAULT now(),
  actor text NOT NULL
);
CREATE INDEX import_rows_batch ON payops.import_rows (batch_id, key, seq);

-- Records that p_batch pays the rows of p_digest (once), unless another batch of them started since
-- the caller looked (p_replaces: the latest batch it saw, or null).
CREATE FUNCTION payops.record_import_batch(p_entity text, p_digest text, p_batch text, p_file text, p_rows integer, p_replaces text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
DECLARE
  latest text;
BEGIN
  PERFORM payops.require_role('record an import batch', 'payops_member', 'payops_worker');
  PERFORM payops.require_entity(p_entity);
  PERFORM pg_advisory_xact_lock(hashtextextended('payops:import:' || p_entity || ':' || p_digest, 0));
  IF EXISTS (SELECT 1 FROM payops.import_batches WHERE entity = p_entity AND digest = p_digest AND batch_id = p_batch) THEN
    RETURN;
  END IF;
  SELECT batch_id INTO latest FROM payops.import_batches WHERE entity = p_entity AND digest = p_digest ORDER BY seq DESC LIMIT 1;
  IF latest IS DISTINCT FROM p_replaces THEN
    RAISE EXCEPTION 'another import started batch % of these rows meanwhile', latest USING ERRCODE = 'P0001', HINT = 'payops:conflict';
  END IF;
  INSERT INTO payops.import_batches (entity, digest, batch_id, file, row_count, actor)
  VALUES (p_entity, p_digest, p_batch, p_file, p_rows, session_user);
END $$;

CREATE FUNCTION payops.record_import_rows(p_entity text, p_batch text, p_rows jsonb) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
BEGIN
  PERFORM payops.require_role('record an import row', 'payops_member', 'payops_worker');
  IF NOT EXISTS (SELECT 1 FROM payops.import_batches WHERE batch_id = p_batch AND entity = p_entity) THEN
    RAISE EXCEPTION 'no import batch %', p_batch USING ERRCODE = 'P0001', HINT = 'payops:not-found';
  END IF;
  INSERT INTO payops.import_rows (batch_id, key, fp, line, n, state, kind, move_id, move_status, http_status, warning, error_status, error_code, message, actor)
  SELECT p_batch, x.key, x.fp, x.line, x.n, x.state, x.kind, x.move_id, x.move_status, x.http_status, x.warning, x.error_status, x.error_code, x.message, session_user
  FROM jsonb_to_recordset(p_rows) AS x(key text, fp text, line integer, n integer, state text, kind text, move_id text, move_status text,
    http_status integer, warning text, error_status integer, error_code text, message text);
END $$;

CREATE FUNCTION payops.finish_import_batch(p_entity text, p_batch text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = payops, pg_temp AS $$
BEGIN
  PERFORM payops.require_role('finish an import batch', 'payops_member', 'payops_worker');
  IF NOT EXISTS (SELECT 1 FROM payops.import_batches WHERE batch_id = p_batch AND entity = p_entity) THEN
    RAISE EXCEPTION 'no import batch %', p_batch USING ERRCODE = 'P0001', HINT = 'payops:not-found';
  END IF;
  INSERT INTO payops.import_finished (batch_id, actor) VALUES (p_batch, session_user) ON CONFLICT DO NOTHING;
END $$;

REVOKE ALL ON payops.import_batches, payops.import_finished, payops.import_rows FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA payops FROM PUBLIC;
REVOKE ALL ON FUNCTION payops.record_import_batch(text, text, text, text, integer, text), payops.record_import_rows(text, text, jsonb),
  payops.finish_import_batch(text, text) FROM PUBLIC;
GRANT SELECT ON payops.import_batches, payops.import_finished, payops.import_rows TO payops_member, payops_worker, payops_admin;
GRANT EXECUTE ON FUNCTION payops.record_import_batch(text, text, text, text, integer, text), payops.record_import_rows(text, text, jsonb),
  payops.finish_import_batch(text, text) TO payops_member, payops_worker;
`
