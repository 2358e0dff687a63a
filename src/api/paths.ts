/**
 * Every API path template of the client, once. The client's areas (src/api/*.ts) fill them with
 * `fillPath` (src/api/client.ts). The emulator (@payops/emulator) keeps its own table, written from
 * the spec; its tests hold this one against the routes it serves.
 *
 * Template syntax: `{name}` stands for one path segment (the spec's syntax). The client encodes
 * each value as one segment.
 */

/** Paths the spec documents. */
export const DOCUMENTED_PATHS = {
  subaccounts: '/api/subaccounts',
  subaccount: '/api/subaccounts/{subaccount_id}',
  subaccountActivity: '/api/subaccounts/{subaccount_id}/activity',
  moveCreate: '/api/subaccounts/move',
  moveApprove: '/api/subaccounts/move/{move_id}/approve',
  treasuryAccounts: '/api/treasury/accounts',
  treasuryAccountLabel: '/api/treasury/accounts/{account_id}/update-label',
  bankTransactions: '/api/treasury/accounts/{account_id}/bank-transactions',
  bankTransaction: '/api/treasury/accounts/{account_id}/bank-transactions/{bank_transaction_id}',
  simulateInboundCredit: '/api/treasury/accounts/{account_id}/simulate-inbound-credit',
  transfers: '/api/treasury/account-transfers',
  transferApprove: '/api/treasury/account-transfers/{account_transfer_id}/approve',
  conversionEstimate: '/api/treasury/account-transfers/conversion-estimate',
  railOptions: '/api/treasury/account-transfers/rail-options',
  payers: '/api/payers',
  payees: '/api/payees',
  payee: '/api/payees/{payee_id}',
  payin: '/api/payins/{payin_id}',
  sessionTokens: '/api/session-tokens',
  partySessionTokens: '/api/session-tokens/party',
} as const

/**
 * Paths of operations the spec says exist without showing them: how payops assumes them (each
 * one also described in ASSUMPTIONS, src/api/assumptions.ts).
 */
export const ASSUMED_PATHS = {
  moveCancel: '/api/subaccounts/move/{move_id}',
  transferCreate: '/api/treasury/account-transfers',
  webhooks: '/api/webhooks',
  webhook: '/api/webhooks/{webhook_id}',
  webhookEnable: '/api/webhooks/{webhook_id}/enable',
  webhookDisable: '/api/webhooks/{webhook_id}/disable',
  webhookEventTypes: '/api/webhooks/event-types',
  treasuryAccountBalance: '/api/treasury/accounts/{account_id}/balance',
} as const

/** Every API path by name. */
export const PATHS = {...DOCUMENTED_PATHS, ...ASSUMED_PATHS} as const

export type PathName = keyof typeof PATHS

/**
 * Paths of the emulator's control API (no key, loopback only) that payops commands call:
 * `emulator load` and `emulator clock`. Not part of the service.
 */
export const CONTROL_PATHS = {
  clock: '/_emulator/clock',
  scenario: '/_emulator/scenario',
} as const

/**
 * A path as the audit trail records a request the movement pipeline sends: the template filled
 * with each value as given (not encoded), so that records compare with those written before.
 */
export function recordedPath(name: PathName, params: Record<string, string> = {}): string {
  return PATHS[name].replace(/\{(\w+)\}/g, (_, key: string) => {
    const v = params[key]
    if (v === undefined) throw new Error(`path parameter ${key} missing for ${PATHS[name]}`)
    return v
  })
}
