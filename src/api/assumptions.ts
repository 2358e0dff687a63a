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
  webhooks: '/api/webhooks',
  webhook: '/api/webhooks/{webhook_id}',
  webhookEnable: '/api/webhooks/{webhook_id}/enable',
  webhookDisable: '/api/webhooks/{webhook_id}/disable',
  webhookEventTypes: '/api/webhooks/event-types',
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
    topic: 'Webhook create (POST /api/webhooks)',
    assumed:
      'Body `{url, description?, event_types}`; 201 with `data` = the Webhook configuration plus `secret` (`whsec_` + 32 random bytes in base64url). The secret is returned only here. The URL must be https:// (the emulator also accepts http:// to 127.0.0.1, localhost or ::1); unknown event types, an empty list or a bad URL are 400 VALIDATION_ERROR. New endpoints are active.',
  },
  {topic: 'Webhook list (GET /api/webhooks)', assumed: 'The list envelope with `cursor`, `limit` (default 50, max 500) and `order` (by creation time, default `desc`); no secrets.'},
  {topic: 'Webhook get and delete (GET/DELETE /api/webhooks/{id})', assumed: '200 with `data` = the configuration (delete returns the deleted one; 204 is also accepted). Unknown ids and other entities\' ids are 404 NOT_FOUND.'},
  {
    topic: 'Webhook update (PATCH /api/webhooks/{id})',
    assumed: 'Errors as for create (400 VALIDATION_ERROR, 404 NOT_FOUND); an empty `event_types` list is 400; `description` `""` or null clears it; `is_active` is not changed by PATCH.',
  },
  {topic: 'Webhook activation toggle', assumed: '`POST /api/webhooks/{id}/enable` and `POST /api/webhooks/{id}/disable`, empty body, 200 with `data` = the configuration; idempotent.'},
  {topic: 'Event-type catalog (GET /api/webhooks/event-types)', assumed: '`{data: [{type, description}], has_more: false}`, not paginated; a list of bare strings is also accepted.'},
  {
    topic: 'Webhook signing key and timestamp',
    assumed: 'The HMAC key is the whole secret string (`whsec_…`) as UTF-8 bytes; `X-Webhook-Timestamp` is unix seconds as a decimal integer.',
  },
  {
    topic: 'Webhook retry schedule',
    assumed:
      'Up to 6 attempts; the n-th retry waits base × 2^(n-1) (base 5 s: 5, 10, 20, 40, 80 s). Every attempt carries the same event id and body and is re-signed with a fresh timestamp. Retries stop when the endpoint is deleted or disabled. A receiver that does not answer 2XX within 10 s fails the attempt.',
  },
]
