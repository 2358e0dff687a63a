/**
 * Every API shape the spec does not show, and how payops assumes it, in one place. The assumed
 * paths are in paths.ts (ASSUMED_PATHS, re-exported here), which the client and the emulator both
 * read, and the README's assumptions table is generated from this list (`npm run readme`), so a
 * correction is one edit.
 */

export interface Assumption {
  /** What the spec leaves open. */
  topic: string
  /** What payops assumes. */
  assumed: string
}

/** Every API path (the assumed ones among them: ASSUMED_PATHS), kept in paths.ts. */
export {ASSUMED_PATHS, PATHS} from './paths.js'

/**
 * The schedule time zone the spec names for `scheduled_date` ("currently America/New_York"): a
 * transfer's send day, and the "today" scheduled transfers are compared with, are days there.
 */
export const SCHEDULE_TIME_ZONE = 'America/New_York'

export const ASSUMPTIONS: Assumption[] = [
  {
    topic: 'Error body layout',
    assumed:
      '`{"error_code": "...", "message": "...", "request_id": "..."}`; the client also reads `{"error": {...}}` and `{"errors": [...]}` and falls back to the HTTP status.',
  },
  {topic: 'Request id', assumed: 'Response header `X-Request-Id` (or `request_id` in an error body); shown in errors and `--debug`.'},
  {
    topic: 'Move cancel (DELETE /api/subaccounts/move/{id})',
    assumed: '200 with `data` = the canceled Move. Any 2XX is canceled, whatever its body (none, `{}`, fields missing): what it leaves out is taken from this machine\'s audit trail or shown as unknown. Cancel of a move not in `created` is 400 VALIDATION_ERROR.',
  },
  {
    topic: 'Approve-move response shape',
    assumed:
      'May be the drifted example shape (`source_subaccount_id`, `destination_subaccount_id`, `currency_code`, `SETTLED`, `settled_at`, `description`), which lists no amount; normalised to the Move fields. An answer without an amount takes it from this machine\'s audit trail when that recorded the move (and the answer does not contradict it), else the amount is shown as unknown. The emulator answers in that shape; with `--drift`, without any amount field; with `--strict`, `{}`. The status code decides what happened whatever the body: 201 settled, 207 approved (not settled); the route comes from the audit trail too.',
  },
  {topic: 'Idempotency-Key replay status', assumed: 'The replayed move comes back with 200 and its state in upper case (`CREATED`, `SETTLED`); normalised to lower case.'},
  {
    topic: 'Idempotency-Key reuse with a different body',
    assumed:
      'The spec says "A key that was used for one move cannot be used for another move" without a status: 409 `IDEMPOTENCY_KEY_CONFLICT` with that sentence as its message (the code the spec already gives a key that cannot be replayed; a 400 would read as a malformed body), and nothing changes. "Another move" is another from, to, amount or `client_metadata`; `auto_approve` is not compared, because the state table continues a `created` move when its create is replayed with auto_approve true. payops reports any 409 to a move create as exit 5 naming the key: "this request … was not carried out; nothing was moved by it". A server that answers the original move instead (200) is caught too: payops compares the answer with the request (from, to, amount; for transfers also currency and rail; for credits the amount), and a difference is exit 5, "key K already names move M …; this request … was not carried out".',
  },
  {
    topic: 'Replay of a move that is not `created`',
    assumed:
      'The state table continues only a `created` move; any other (an `approved` one left by a failed settlement included) is answered as it is (200, upper-case state) and not settled. payops reports such a replay of an `approved` move as exit 6 (asked to settle, not settled) and says the move stays approved: the API offers no way to continue it.',
  },
  {
    topic: 'Telling a replay from a creation',
    assumed:
      'A replay answers 200, or 207 with its status in upper case (the spec\'s replay states). Whether a replay moved a `created` move on is read from this machine\'s audit trail (the key\'s last recorded status) or, when the trail does not know the key, from `status_recorded_at` falling within the request (its start taken from the response\'s `Date` header, allowing for clock skew).',
  },
  {
    topic: 'Idempotency-Key on approve and cancel',
    assumed:
      'Not documented, so not sent, and an approve or cancel is never re-sent after an answer that may have been lost: exit 7 names the command to run again (a second approve of a settled move is a 400, never a second settlement). The next answer that shows the state asked for is read as what it is: 400 "cannot be canceled in status canceled" to a cancel, "cannot be approved in status settled" to a move approve, "in status approved" (or initiated, debited, settled) to a transfer approve is exit 0, "already canceled/settled/approved", naming the earlier request of this machine whose answer was lost when the audit trail has it. A refusal that does not name the state stays exit 8.',
  },
  {
    topic: 'Which failures prove that nothing was sent',
    assumed:
      'Only a connection never made (refused, DNS failure, unreachable, connect timeout). Any answer with a status (5xx, and 408 and 429: rate limits are not shown) and any reset or timeout may come after the server acted, so writes are re-sent after them only where the spec promises idempotency: move create with its Idempotency-Key. GETs are always retried.',
  },
  {
    topic: 'Amount of a move being approved',
    assumed:
      'The API cannot show one move, so `moves approve` on a LIVE key or a profile with limits takes the amount, currency, from and to from this machine\'s audit trail (every create, import row and `api` money call is recorded there). When they are unknown the confirmation says so and asks for the id\'s last 6 characters; a profile with limits refuses unless --override-limits.',
  },
  {
    topic: 'Replay of an `approved` move (settlement failed)',
    assumed:
      'The state table continues only a `created` move on a replay, so payops leans on nothing more: an import re-run sends such a row again with its key only to read where its move stands (200, the existing move), and reports it as approved, not settled, until an answer shows it settled (then `advanced`). Nothing payops can send settles it (`moves approve` is 400 for a move not `created`).',
  },
  {topic: 'Move `failed` state', assumed: 'Reached only when settlement fails on create (207 keeps the move `approved`); a replay of a failed move is 409.'},
  {
    topic: 'Subaccount activity of moves',
    assumed: 'A settled move adds a `transfer` activity item to both subaccounts (debit on the source, credit on the destination), `effective_at` = settlement time.',
  },
  {topic: 'Subaccount currency', assumed: 'A subaccount has the currency of the entity\'s main (USD) treasury account; `currency_code` is returned.'},
  {topic: 'Malformed ids in paths', assumed: 'An id that names nothing in the caller\'s entity (malformed or another entity\'s) is 404 NOT_FOUND.'},
  {topic: 'List `total_count`', assumed: 'The number of items matching the filters, across all pages.'},
  {
    topic: 'List `next_cursor` (optional in the envelope)',
    assumed:
      'A list is whole only when a page says `has_more: false`. A page with `has_more: true` and no `next_cursor` leaves the list unreadable past it: a command reading the whole list (`--all`, `api --paginate`, position, statements, reconcile, watch) stops with exit 1 (IncompleteListError) and shows no figure computed from part of it. The emulator answers so with `has_more_without_cursor` (or `strict`).',
  },
  {
    topic: 'Schedule time zone and days',
    assumed:
      '`scheduled_date` is a day in America/New_York (SCHEDULE_TIME_ZONE; the spec says "currently"). A transfer\'s send day is its `scheduled_date`, else the New York day of its `created_at`; the "today" the position (due or scheduled) and reconcile (pending, stuck, transfer_only) compare send days with is the New York day. UTC everywhere the spec ties no zone: bank `transaction_date`s, activity `effective_at` windows (the spec says UTC), statement months, payer/payee `created_at_*` days, a simulated credit\'s default date (the spec says UTC), daily caps, and the watch rule `reconcile-exceptions`\' window (through today in UTC, never earlier than the New York day).',
  },
  {
    topic: 'Currency of an amount',
    assumed:
      'An amount is in the currency its own resource names: a transfer\'s `currency_code` (not its account\'s), a bank line\'s `currency_code`, an activity item\'s `currency_code`, else its subaccount\'s. Where nothing names one, no currency is assumed (never USD): the amount is shown as minor units of an unknown currency (`currency_code: null` in json), and a command that needs the currency (move create, a subaccount statement) asks for `--currency`.',
  },
  {
    topic: 'Transfer `client_metadata` limits',
    assumed: 'None: the spec states its metadata limits (50 keys, 40-character keys, 500-character values, 16 KB) for moves only; a transfer\'s `client_metadata` is a map string -> any.',
  },
  {
    topic: 'Enum values the spec does not list',
    assumed:
      'Statuses, rails, countries, activity sources and directions may gain values: responses are read with any string and shown as they came. Only the listed states count as money moved (`settled`; for daily caps approved, initiated, debited and settled); a direction other than credit or debit counts in no balance or total. Requests keep to the listed values.',
  },
  {topic: 'Cursor format', assumed: 'Opaque strings; a cursor from another list, order or filter set is 400 VALIDATION_ERROR.'},
  {
    topic: 'Payers list `limit` maximum',
    assumed: 'The emulator takes the parameter definition (max 500) for payers and payees alike: a limit outside 1 to 500 is 400 VALIDATION_ERROR. `payops payers list` keeps to the payers description\'s 100 (its `--limit` refuses more, exit 2), which a service enforcing either reading accepts; `payees list` takes up to 500.',
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
  {topic: 'Treasury account label', assumed: 'Required string, trimmed, 1 to 100 characters; otherwise 400 VALIDATION_ERROR. Update-label errors: 400, 401, 403, 404 NOT_FOUND (unknown or another entity\'s account).'},
  {
    topic: 'Treasury accounts of the emulator',
    assumed:
      'Seeded, never created through the API. The main test entity has its main USD account, simulated GBP and INR accounts and one USD account that is not simulated; the other entities have one USD account each.',
  },
  {topic: 'Bank-transaction order', assumed: '`order` sorts by ingestion (creation) time; lines without `transaction_date` never match a `transaction_date_*` filter.'},
  {
    topic: 'Simulated credit: "sandbox reference"',
    assumed:
      'The optional `Idempotency-Key` header (the spec names a 409 "duplicate sandbox reference" and no body field that could be one). A reference is used once: any request that repeats it, with the same body or another, is 409 `DUPLICATE_SANDBOX_REFERENCE` and credits nothing; nothing is replayed. `payops` always sends one (generated and printed when not given) and never re-sends a credit whose answer was lost: a bank line carries nothing that ties it to the request, so it cannot be found reliably, and the command exits 7 naming the same request with the same reference. payops does not rely on the 409 (the spec does not say what a sandbox reference is; `emulator start --strict` credits a repeated one again): that re-run first reads the account\'s bank lines of the pinned transaction date and sends nothing (exit 7, listing them) when a credit line of that amount (and sender, when given) could be the lost one; `--send-anyway` sends all the same, naming the risk of a second credit. A key whose earlier request this machine saw answered 2XX is not sent again (replayed from the audit trail). A 409 to a re-run that was sent, when this machine\'s audit trail holds the lost request with that reference, amount and destination, is reported as already credited (exit 0); otherwise it stays exit 5.',
  },
  {
    topic: 'Simulated credit to a subaccount',
    assumed:
      'Every subaccount belongs to the entity\'s main (first USD) account. The bank line is still added to the account; the subaccount\'s incoming total grows, it gets a `bai2` activity item, and `subaccount.credit_received` is emitted. An unknown subaccount or one of another account is 400.',
  },
  {topic: 'Simulated credit checks order', assumed: 'Live entity (400), then unknown account (404), then body (400), non-simulated account (400), ACH on a non-USD account (400), subaccount (400), reference (409).'},
  {
    topic: 'Account transfer create (path and body not shown)',
    assumed:
      '`POST /api/treasury/account-transfers` with `{from_account_id, to_account_id, amount_in_minor_units, currency_code, rail, auto_approve (default true), scheduled_date?, client_metadata?}`; 201 `{data: transfer}` (`initiated` with auto-approve, `created` without), 202 `approved` with async initiation. The answer is not shown, so any 2XX is accepted whatever its body: what it leaves out is the request\'s (route, amount, currency, rail) or unknown (id, status: `"id": null` in the outcome, never an empty one). A 202 without an id is "accepted, not yet listed"; `--wait` finds it in the list by its key, or as the only transfer with those accounts, amount and currency created since the run started (several: exit 7, named), and follows it. `--strict`: 201 without `client_metadata`, 202 with an empty body.',
  },
  {
    topic: 'Account transfer Idempotency-Key',
    assumed:
      'Not documented for transfers, so not relied on (the emulator ignores it: a repeated key creates another transfer). `payops transfers create` sends one and carries it in `client_metadata.payops_idempotency_key`, and never re-sends a create whose answer may have been lost: it looks in the transfer list (the source account, that amount, created since 5 minutes before sending). Found: made by this run, exit 0. Not found: exit 7, because a list may show a new transfer late; the message names the list command and the re-run with the same key, which looks in the source account\'s transfers first and sends nothing when the key is there (a listed transfer with other details is exit 5) or when this machine\'s audit trail shows the key\'s request answered 2XX. The list may not echo `client_metadata` (the spec lists it as optional; `emulator start --strict` leaves it out), so after a lost answer the re-run sends only when the list, read to its end from 15 minutes before to 15 minutes after the lost attempt, shows no transfer with the same from, to, amount and currency that carries no other request\'s key; otherwise exit 7, nothing sent, the candidates listed, `settle` the read-only list command, and `--send-anyway` named as the way to send all the same (its confirmation and sentence name the risk of a second transfer). A list that cannot be read to its end (an error, `has_more` without a cursor, over 50 pages) proves nothing: exit 7 too.',
  },
  {topic: 'Account transfer validation', assumed: 'Unknown accounts 404; same account 400; `currency_code` must equal the source account\'s currency (400 incompatible currency); ACH and instant rails only between two USD accounts, wire between any (400 unsupported rail).'},
  {topic: 'Account transfer approve response', assumed: '200 `{data: transfer}` with status `approved` (any 2XX means approved, whatever its body: what it leaves out is taken from the list of transfers awaiting approval or the audit trail, or unknown; `--strict` answers with no body); any other state 400, unknown 404. It is then initiated by the bank side (in the emulator: on its own with async initiation, else through the control API).'},
  {
    topic: 'Treasury account balance (GET /api/treasury/accounts/{account_id}/balance)',
    assumed:
      '200 `{data: {account_id, currency_code, current_balance_in_minor_units, available_balance_in_minor_units, as_of}}` (`…_in_cents` names are also read). `current` is what the account\'s bank lines add up to (credits minus debits; a line without a direction is not counted); `available` also sets aside transfers out that are approved or initiated but not yet booked; `as_of` is the time they stand at. Unknown or another entity\'s account: 404 NOT_FOUND ("balance not found"). The spec shows no balance fields, so only `current_balance_in_minor_units` and `currency_code` are required (`--strict` answers only those); the others are shown when given, else left empty.',
  },
  {topic: '`scheduled_date`', assumed: 'Stored and returned as given; an auto-approved transfer scheduled for a later day stays `approved` until its send day (America/New_York), then is initiated.'},
  {
    topic: "The service's clock (HTTP `Date`)",
    assumed:
      "Answers carry the standard HTTP `Date` header of the service's clock. The books' \"today\" (due, scheduled, pending, stuck, a statement `complete`) and watch's hours are taken on that clock when it differs from this machine's by more than two minutes (an emulator whose clock was moved, a machine whose clock is wrong), else on this machine's. No control reads it: daily caps count by the audit trail, on this machine's day.",
  },
  {topic: 'Rail filter grouped literals', assumed: '`ach` = same_day_ach + standard_ach, `instant` = instant_card + instant_bank, `all` = every rail.'},
  {topic: 'Account-transfer list errors', assumed: 'Invalid filter values (unknown rail or status, non-integer amounts, malformed date-times, bad cursor) are 400 VALIDATION_ERROR.'},
  {topic: 'Rail options', assumed: 'Two USD accounts: `ACH`, `RTP`, `Wire`; any other pair: `Wire`. Same account 400, unknown account 404.'},
  {
    topic: 'Conversion estimate',
    assumed:
      'A fixed table of indicative rates per USD; the pair rate is rounded half-up to 6 decimals and that rate is applied; the destination amount is rounded half-up to whole minor units with each currency\'s exponent. Same account 400, unknown account 404.',
  },
  {topic: 'Account transfer GET', assumed: 'No single-transfer endpoint: `--wait` polls the list filtered by the source account and a created_at window and finds the id.'},
  {
    topic: 'Webhook create (POST /api/webhooks)',
    assumed:
      'Body `{url, description?, event_types}`; 201 with `data` = the Webhook configuration plus `secret` (`whsec_` + 32 random bytes in base64url). The secret is returned only here, if at all: an answer without it (`--strict`) is success; the endpoint is named by its id and the way to a secret given (`webhooks rotate-secret`, whose create may carry one; the spec shows no way to read a secret), and `webhooks listen --register` deletes such an endpoint again and stops. The URL must be https:// (the emulator also accepts http:// to 127.0.0.1, localhost or ::1); unknown event types, an empty list or a bad URL are 400 VALIDATION_ERROR. New endpoints are active.',
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
    assumed:
      'The HMAC key is the whole secret string (`whsec_…`) as UTF-8 bytes. `X-Webhook-Timestamp` is signed exactly as sent and may be, as the spec\'s conventions allow, unix seconds (up to 11 digits), unix milliseconds (12 or 13 digits) or an ISO 8601 date-time with an offset; the listener and `webhooks verify` accept all three and apply the tolerance to the instant. The emulator sends unix seconds, or ISO 8601 date-times with `webhook_timestamps: "iso"` (or `strict`).',
  },
  {
    topic: 'Treasury account `last_four_digits`',
    assumed:
      'The last four characters of the account\'s number at the bank, the number its statement files carry (BAI2 03 record, camt `Acct/Id`, MT940 `:25:`): `reconcile --statement` reads the file\'s account whose number ends with them and refuses a file with none (or an account that shows none); `report statement --format camt053|bai2|mt940` writes them as the account number.',
  },
  {
    topic: 'Webhook retry schedule',
    assumed:
      'Up to 6 attempts; the n-th retry waits base × 2^(n-1) (base 5 s: 5, 10, 20, 40, 80 s). Every attempt carries the same event id and body and is re-signed with a fresh timestamp. Retries stop when the endpoint is deleted or disabled. A receiver that does not answer 2XX within 10 s fails the attempt.',
  },
]
