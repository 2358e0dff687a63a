/**
 * The emulator's path table: every route it serves, once, in the spec's template syntax (`{name}`
 * for one path segment; server/router.ts reads it). Written from the spec's Endpoints section;
 * the operations the spec says exist without showing their path are served where a client of
 * this API would look for them (ASSUMED_PATHS).
 */

/** Paths the spec documents (section "Endpoints"). */
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
 * Operations the spec names with their shape "not shown": move cancel (DELETE on the move, as the
 * spec writes it), account-transfer create, the webhook operations, the treasury balance.
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

/** The control API's paths that clients drive (clock and scenario); the rest are in their route modules. */
export const CONTROL_PATHS = {
  clock: '/_emulator/clock',
  scenario: '/_emulator/scenario',
} as const
