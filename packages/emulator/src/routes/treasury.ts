/**
 * Treasury accounts (list, update label), their bank-reported transactions (list, get) and the
 * sandbox inbound credit.
 *
 * Simulated credit: the sandbox reference is the optional `Idempotency-Key` header (the spec names
 * a "duplicate sandbox reference" 409 and no body field that could be one). A reference is used
 * once: any request that repeats it, with the same body or another, is 409
 * DUPLICATE_SANDBOX_REFERENCE and credits nothing. Nothing is replayed: the spec promises
 * idempotency for move create only. With `--strict` the header is ignored (a repeat credits again). A credit always
 * adds a bank line to the path account; with `subaccount_id` the subaccount is credited instead of
 * the main account (its incoming total and a `bai2` activity line) and `subaccount.credit_received`
 * is emitted.
 */
import {PATHS} from '../interface/paths.js'
import {AccountsQuery, BankTransactionsQuery, SimulateCreditRequest, UpdateLabelRequest} from '../interface/treasury.js'
import type {AppContext} from '../app.js'
import {HttpError, notFound, validationError} from '../lib/http-error.js'
import {created, ok, parseInput, type RequestContext} from '../server/handler.js'
import {KeyedMutex} from '../server/locks.js'
import {paginate} from '../server/pagination.js'
import type {Router} from '../server/router.js'
import type {BankTransactionRecord, Entity, TreasuryAccountRecord} from '../store/index.js'

export const MAX_REFERENCE_LENGTH = 255

export function accountView(a: TreasuryAccountRecord) {
  return {
    id: a.id,
    label: a.label,
    currency_code: a.currency_code,
    last_four_digits: a.last_four_digits,
    created_at: a.created_at,
    updated_at: a.updated_at,
  }
}

/** Fields the bank did not report are left out (never null). */
export function bankTransactionView(t: BankTransactionRecord) {
  const v: Record<string, unknown> = {
    id: t.id,
    amount_in_minor_units: t.amount_in_minor_units,
    currency_code: t.currency_code,
    description: t.description,
  }
  if (t.sender_info !== undefined) v.sender_info = t.sender_info
  if (t.receiver_info !== undefined) v.receiver_info = t.receiver_info
  if (t.direction !== undefined) v.direction = t.direction
  if (t.transaction_date !== undefined) v.transaction_date = t.transaction_date
  return v
}

export function simulatedCreditView(t: BankTransactionRecord) {
  return {
    bank_transaction_id: t.id,
    amount_in_minor_units: t.amount_in_minor_units,
    currency_code: t.currency_code,
    transaction_date: t.transaction_date ?? null,
    direction: 'credit' as const,
  }
}

/** The caller's treasury account, or 404 (unknown ids and other entities' ids alike). */
export function findAccount(entity: Entity, id: string): TreasuryAccountRecord {
  const a = entity.treasuryAccounts.get(id)
  if (!a) throw notFound(`treasury account ${id} not found`)
  return a
}

export function todayUtc(now = new Date()): string {
  return now.toISOString().slice(0, 10)
}

function referenceOf(ctx: RequestContext): string | undefined {
  const key = ctx.header('idempotency-key')
  if (key === undefined) return undefined
  if (key.length === 0 || key.length > MAX_REFERENCE_LENGTH) throw validationError(`Idempotency-Key must be 1 to ${MAX_REFERENCE_LENGTH} characters`)
  return key
}

function simulateCredit(app: AppContext, ctx: RequestContext, reference: string | undefined) {
  const entity = ctx.entity
  if (entity.mode !== 'test') throw validationError('simulate-inbound-credit is available to test entities only; this is a live entity')
  const account = findAccount(entity, ctx.params.account_id)
  const input = parseInput(SimulateCreditRequest, ctx.body)
  if (!account.simulated) throw validationError(`treasury account ${account.id} is not a simulated account`)
  if (input.rail === 'standard_ach' && account.currency_code !== 'USD') {
    throw validationError(`standard_ach needs a US/USD simulated account; account ${account.id} is ${account.currency_code} (use wire)`)
  }
  if (input.subaccount_id !== undefined) {
    const sub = entity.subaccounts.get(input.subaccount_id)
    if (!sub) throw validationError(`invalid subaccount: ${input.subaccount_id} is not a subaccount of this entity`)
    if (entity.mainAccount()?.id !== account.id) {
      throw validationError(`invalid subaccount: ${input.subaccount_id} does not belong to treasury account ${account.id}`)
    }
  }
  const fingerprint = JSON.stringify([account.id, input.rail, input.amount_in_minor_units, input.transaction_date ?? null, input.sender_info ?? null, input.subaccount_id ?? null])
  // Strict (strict.ts): the spec does not say what a sandbox reference is, so a repeated one is not refused (the line still records it).
  const used = reference === undefined || app.strict?.on ? undefined : app.store.treasury.creditByReference(entity, reference)
  if (used) {
    throw new HttpError(409, 'DUPLICATE_SANDBOX_REFERENCE', `duplicate sandbox reference: this Idempotency-Key was already used for bank transaction ${used.id}; nothing was credited`)
  }
  const today = todayUtc(new Date(app.store.nowMs()))
  const date = input.transaction_date ?? today
  const line = app.store.treasury.addBankTransaction(entity, account.id, {
    amount_in_minor_units: input.amount_in_minor_units,
    currency_code: account.currency_code,
    description: input.rail === 'wire' ? 'WIRE IN (SIMULATED)' : 'ACH CREDIT (SIMULATED)',
    sender_info: input.sender_info,
    direction: 'credit',
    transaction_date: date,
    subaccount_id: input.subaccount_id,
    sandbox_reference: reference,
    request_fingerprint: reference === undefined ? undefined : fingerprint,
  })
  if (input.subaccount_id !== undefined) {
    app.store.subaccounts.bookFlow(entity, input.subaccount_id, {
      source: 'bai2',
      direction: 'credit',
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: account.currency_code,
      effective_at: date === today ? undefined : `${date}T00:00:00.000Z`,
      reference_id: line.id,
    })
    app.events.emit(entity.id, 'subaccount.credit_received', {
      subaccount_id: input.subaccount_id,
      amount_cents: input.amount_in_minor_units,
      amount_in_minor_units: input.amount_in_minor_units,
    })
  }
  return created({data: simulatedCreditView(line)})
}

export function register(router: Router, app: AppContext): void {
  router.add('GET', PATHS.treasuryAccounts, (ctx) => {
    const q = parseInput(AccountsQuery, ctx.query)
    return ok(paginate(ctx.entity.treasuryAccounts.items, {limit: q.limit, order: q.order ?? 'desc', cursor: q.cursor, scope: 'treasury-accounts'}, accountView))
  })

  router.add('POST', PATHS.treasuryAccountLabel, (ctx) => {
    const account = findAccount(ctx.entity, ctx.params.account_id)
    const body = parseInput(UpdateLabelRequest, ctx.body)
    app.store.treasury.updateLabel(ctx.entity, account, body.label)
    return ok({data: accountView(account)})
  })

  router.add('GET', PATHS.bankTransactions, (ctx) => {
    const q = parseInput(BankTransactionsQuery, ctx.query)
    const account = findAccount(ctx.entity, ctx.params.account_id)
    const gte = q.transaction_date_gte
    const lte = q.transaction_date_lte
    const filter =
      gte !== undefined || lte !== undefined
        ? (t: BankTransactionRecord) =>
            t.transaction_date !== undefined && (gte === undefined || t.transaction_date >= gte) && (lte === undefined || t.transaction_date <= lte)
        : undefined
    const items = ctx.entity.bankTransactions.get(account.id)?.items ?? []
    const scope = ['bank-transactions', account.id, gte, lte].join('|')
    return ok(paginate(items, {limit: q.limit, order: q.order ?? 'desc', cursor: q.cursor, filter, scope}, bankTransactionView))
  })

  router.add('GET', PATHS.bankTransaction, (ctx) => {
    const account = findAccount(ctx.entity, ctx.params.account_id)
    const t = ctx.entity.bankTransactions.get(account.id)?.get(ctx.params.bank_transaction_id)
    if (!t) throw notFound(`bank transaction ${ctx.params.bank_transaction_id} not found on treasury account ${account.id}`)
    return ok({data: bankTransactionView(t)})
  })

  const inFlight = new KeyedMutex()
  router.add('POST', PATHS.simulateInboundCredit, (ctx) => {
    const reference = referenceOf(ctx)
    if (reference === undefined) return simulateCredit(app, ctx, undefined)
    return inFlight.run(`${ctx.entity.id}\n${reference}`, () => simulateCredit(app, ctx, reference))
  })
}
