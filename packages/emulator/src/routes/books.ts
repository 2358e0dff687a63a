/**
 * What a treasury operator's books read beyond the documented routes: the account balance (an
 * operation the spec says exists with its shape not shown; see PATHS.treasuryAccountBalance and
 * assumptions.ts), computed from the account's bank lines, and the control API that makes the
 * bank feed realistic and lets a test add a bank line by hand.
 *
 * Balance: `current` is the sum of the account's bank lines that carry a direction (credits minus
 * debits); `available` also sets aside transfers out of the account that are approved or initiated
 * but not yet booked. 404 NOT_FOUND for an unknown account or another entity's.
 *
 * Control API (no key, loopback only):
 * - POST /_emulator/bank-feed   {entity, enabled, fee_rate?: 0..1, seed?: integer} (see bank-feed.ts)
 * - POST /_emulator/bank-lines  {account_id, amount_in_minor_units, direction, description?,
 *                                transaction_date?, sender_info?, receiver_info?} adds a bank line
 *                                (201 {data: the line as the API shows it})
 */
import * as z from 'zod/mini'
import {PATHS} from '../interface/paths.js'
import {CalendarDate} from '../interface/common.js'
import type {TreasuryBalance} from '../interface/treasury.js'
import type {AppContext} from '../app.js'
import {feedSettings, setFeed} from '../bank-feed/bank-feed.js'
import {notFound} from '../lib/http-error.js'
import {created, ok, parseInput} from '../server/handler.js'
import type {Router} from '../server/router.js'
import {ENTITY_ROLES, type Entity, type TreasuryAccountRecord} from '../store/index.js'
import {bankTransactionView, findAccount, todayUtc} from './treasury.js'

const FeedBody = z.object({
  entity: z.enum(ENTITY_ROLES, {message: `entity must be one of ${ENTITY_ROLES.join(', ')}`}),
  enabled: z.boolean({message: 'enabled must be a boolean'}),
  fee_rate: z.optional(z.number({message: 'fee_rate must be a number'}).check(z.gte(0, 'fee_rate must be 0 to 1'), z.lte(1, 'fee_rate must be 0 to 1'))),
  seed: z.optional(z.int('seed must be a whole number')),
})

const text = (max: number, name: string) => z.optional(z.string({message: `${name} must be a string`}).check(z.maxLength(max, `${name} must be at most ${max} characters`)))

const BankLineBody = z.object({
  account_id: z.string({message: 'account_id is required'}),
  amount_in_minor_units: z.int('amount_in_minor_units must be a whole number').check(z.positive('amount_in_minor_units must be positive')),
  direction: z.enum(['credit', 'debit'], {message: 'direction must be credit or debit'}),
  description: text(200, 'description'),
  transaction_date: z.optional(CalendarDate),
  sender_info: text(200, 'sender_info'),
  receiver_info: text(200, 'receiver_info'),
})

/** The balance of an account from its bank lines and its transfers out not yet booked. */
export function balanceOf(entity: Entity, account: TreasuryAccountRecord, asOf: string): TreasuryBalance {
  let current = 0
  for (const line of entity.bankTransactions.get(account.id)?.items ?? []) {
    if (line.direction === 'credit') current += line.amount_in_minor_units
    else if (line.direction === 'debit') current -= line.amount_in_minor_units
  }
  let committed = 0
  for (const t of entity.accountTransfers.items) {
    if (t.from_account_id === account.id && (t.status === 'approved' || t.status === 'initiated')) committed += t.amount_in_minor_units
  }
  return {
    account_id: account.id,
    currency_code: account.currency_code,
    current_balance_in_minor_units: current,
    available_balance_in_minor_units: current - committed,
    as_of: asOf,
  }
}

function accountAnywhere(app: AppContext, id: string): {entity: Entity; account: TreasuryAccountRecord} {
  for (const entity of app.store.entities.values()) {
    const account = entity.treasuryAccounts.get(id)
    if (account) return {entity, account}
  }
  throw notFound(`treasury account ${id} not found`)
}

export function register(router: Router, app: AppContext): void {
  router.add('GET', PATHS.treasuryAccountBalance, (ctx) => {
    const account = findAccount(ctx.entity, ctx.params.account_id)
    return ok({data: balanceOf(ctx.entity, account, app.store.now())})
  })

  // ---- control API ----

  router.add('POST', '/_emulator/bank-feed', (ctx) => {
    const body = parseInput(FeedBody, ctx.body)
    const entity = app.store.entityByRole(body.entity)
    if (!entity) throw notFound(`entity ${body.entity} not found`)
    setFeed(app.store, entity, body)
    return ok({entity: body.entity, ...feedSettings(entity)})
  })

  router.add('POST', '/_emulator/bank-lines', (ctx) => {
    const body = parseInput(BankLineBody, ctx.body)
    const {entity, account} = accountAnywhere(app, body.account_id)
    const line = app.store.treasury.addBankTransaction(entity, account.id, {
      amount_in_minor_units: body.amount_in_minor_units,
      currency_code: account.currency_code,
      description: body.description ?? (body.direction === 'credit' ? 'CREDIT' : 'DEBIT'),
      sender_info: body.sender_info,
      receiver_info: body.receiver_info,
      direction: body.direction,
      transaction_date: body.transaction_date ?? todayUtc(new Date(app.store.nowMs())),
    })
    return created({data: bankTransactionView(line)})
  })
}
