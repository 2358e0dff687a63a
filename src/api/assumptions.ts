/**
 * Every API shape the spec does not show, and how payops assumes it, in one place. The client and
 * the emulator both read paths from here, and the README's assumptions table is generated from
 * this list (`npm run readme`), so a correction is one edit.
 */

export interface Assumption {
  /** What the spec leaves open. */
  topic: string
  /** What payops assumes. */
  assumed: string
}

export const PATHS = {
  moveCancel: '/api/subaccounts/move/{move_id}',
  moveGet: '/api/subaccounts/move/{move_id}',
} as const

export const ASSUMPTIONS: Assumption[] = [
  {
    topic: 'Error body layout',
    assumed:
      '`{"error_code": "...", "message": "...", "request_id": "..."}`; the client also reads `{"error": {...}}` and `{"errors": [...]}` and falls back to the HTTP status.',
  },
  {topic: 'Request id', assumed: 'Response header `X-Request-Id` (or `request_id` in an error body); shown in errors and `--debug`.'},
  {
    topic: 'Move cancel (DELETE /api/subaccounts/move/{id})',
    assumed: '200 with `data` = the canceled Move; 204 with no body is also accepted. Cancel of a move not in `created` is 400 VALIDATION_ERROR.',
  },
  {
    topic: 'Fetching one move (GET /api/subaccounts/move/{id})',
    assumed:
      '200 with `data` = Move. Used only to check a move against profile limits and to show its amount before `moves approve`; when it is unavailable and limits or a LIVE key apply, approve refuses.',
  },
  {
    topic: 'Approve-move response shape',
    assumed:
      'May be the drifted example shape (`source_subaccount_id`, `destination_subaccount_id`, `SETTLED`, `settled_at`, `description`); normalised to the Move fields. The emulator answers in that shape.',
  },
  {topic: 'Idempotency-Key replay status', assumed: 'The replayed move comes back with 200 and its state in upper case (`CREATED`, `SETTLED`); normalised to lower case.'},
  {topic: 'Idempotency-Key reuse with a different body', assumed: 'Returns the original move unchanged (200); the key names the move, not the body.'},
  {topic: 'Move `failed` state', assumed: 'Reached only when settlement fails on create (207 keeps the move `approved`); a replay of a failed move is 409.'},
  {
    topic: 'Subaccount activity of moves',
    assumed: 'A settled move adds a `transfer` activity item to both subaccounts (debit on the source, credit on the destination), `effective_at` = settlement time.',
  },
  {topic: 'Subaccount currency', assumed: 'A subaccount has the currency of the entity\'s main (USD) treasury account; `currency_code` is returned.'},
  {topic: 'Malformed ids in paths', assumed: 'An id that names nothing in the caller\'s entity (malformed or another entity\'s) is 404 NOT_FOUND.'},
  {topic: 'List `total_count`', assumed: 'The number of items matching the filters, across all pages.'},
  {topic: 'Cursor format', assumed: 'Opaque strings; a cursor from another list, order or filter set is 400 VALIDATION_ERROR.'},
  {
    topic: 'Payers list `limit` maximum',
    assumed: 'The parameter definition (max 500) is normative for payers and payees alike (the payers description says 100); a limit outside 1 to 500 is 400 VALIDATION_ERROR.',
  },
  {
    topic: 'Payer/payee `has_default` (payment methods)',
    assumed:
      'Payment-method records are not shown, so none is exposed: the emulator keeps an internal default payment method per party (last four digits and routing number) that backs the `has_default` filter and a payin\'s `payin_metadata.payment_method`.',
  },
  {
    topic: 'Payer/payee `created_at_gte`/`created_at_lte`',
    assumed: 'Whole UTC days, both inclusive: `created_at_lte=D` includes everything created on D (UTC). An impossible date is 400 VALIDATION_ERROR.',
  },
  {topic: 'Payer/payee absent `country_code`', assumed: 'The field is omitted when unknown (the other address fields are null).'},
  {topic: 'Payin creation and processing', assumed: 'Not shown, so not offered by the CLI; the emulator\'s control API creates payins and advances their states.'},
  {
    topic: 'Payin transitions',
    assumed:
      'created -> approved -> initiated -> debited -> settled; failed from approved, initiated or debited; canceled from created or approved. `end_to_end_id` appears in `payin_metadata.payment_method` once initiated. A settled payin emits `payin.settled`, a failed one `payin.failed`; no balance effect (no subaccount link is shown).',
  },
  {topic: 'Session-token lifetime', assumed: '900 seconds (`expires_in_seconds`); the CLI shows the absolute expiry computed from it when received.'},
  {topic: 'Session-token scopes for `external`', assumed: '`external_manage` (by analogy with `payee_manage` and `payer_manage`).'},
  {
    topic: 'Session-token party lookup',
    assumed:
      'POST /api/session-tokens and party_type `payee`: an unknown or other entity\'s payee is 404 PAYEE_NOT_FOUND. party_type `payer`: 404 NOT_FOUND (no payer code is listed). `external`: the caller\'s own reference to someone outside the service (any UUID), not looked up.',
  },
  {
    topic: 'Session-token response envelope',
    assumed:
      'The spec shows it bare and wrapped in `data`; the client accepts both on both endpoints. The emulator answers POST /api/session-tokens bare (`{token, expires_in_seconds, scopes}`) and POST /api/session-tokens/party wrapped (`{data: {...}}`).',
  },
  {
    topic: 'Session-token JWT',
    assumed:
      'HS256, claims `iss` (`payops-emulator` in the emulator), `sub` = party id, `party_type`, `entity_id`, `scopes`, `iat`, `exp`, `jti`. The CLI decodes (does not verify) the claims for display.',
  },
]
