/**
 * The one place the emulator's tests read the payops client: as an independent oracle of the
 * emulator's answers. Every API reply is parsed with the client's own resource schemas (helpers.ts),
 * every delivery verified with the client's own verifier, and the client's path table is held
 * against the routes the emulator serves. The emulator's code never imports any of this: the two
 * were written each from the spec, and these tests show that they agree.
 */
export {PATHS as CLIENT_PATHS, type PathName as ClientPathName} from '../../../src/api/paths.js'
export {envelope, listEnvelope} from '../../../src/api/schemas/common.js'
export {Move} from '../../../src/api/schemas/moves.js'
export {Party, Payee, Payer, Payin, SessionToken, SessionTokenResponse} from '../../../src/api/schemas/parties.js'
export {ActivityItem, Subaccount} from '../../../src/api/schemas/subaccounts.js'
export {AccountTransfer, ConversionEstimate, RailOptions} from '../../../src/api/schemas/transfers.js'
export {BankTransaction, SimulatedCredit, TreasuryAccount, TreasuryBalance} from '../../../src/api/schemas/treasury.js'
export {EventTypeEntry, WebhookEndpoint, WebhookEndpointWithSecret} from '../../../src/api/schemas/webhooks.js'
export {verify} from '../../../src/webhooks/signature.js'
