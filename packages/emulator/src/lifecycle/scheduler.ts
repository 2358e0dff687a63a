/**
 * What happens when the emulator's clock moves (`POST /_emulator/clock`, `emulator clock advance|set`):
 * everything that became due up to the new instant runs in time order, each step with the clock
 * set to the instant it is due, so that `status_recorded_at`, `updated_at`, bank lines and events
 * carry that time. Days are those of the schedule timezone (America/New_York, clock.ts).
 *
 * - An approved account transfer is initiated at the start of its send day (its `scheduled_date`,
 *   else the day it was created); an initiated one settles at the start of its send day plus the
 *   rail's settlement lag (2 days for standard ACH, 0 for the others: bank-feed.ts), booking its
 *   bank lines. With async initiation on, each step also waits for the entity's `delay_ms` after
 *   the previous one.
 * - An approved payin is initiated and debited on its send day and settles after its rail's lag
 *   (emitting payin.settled).
 * - A planned bank line (a scenario's line dated after the clock) is booked at the start of its
 *   `transaction_date`; one for a subaccount also credits it and emits subaccount.credit_received.
 * - Webhook deliveries follow their events: the delivery engine sends each event as it is emitted.
 *
 * Held transfers and payins (a scenario's stuck ones) never move; `created` ones wait for approval.
 */
import {SETTLEMENT_LAG_DAYS} from '../bank-feed/bank-feed.js'
import {addDays, scheduleDay, startOfDay} from '../clock/clock.js'
import type {AppContext} from '../app.js'
import {stepPayin} from './payin-steps.js'
import type {AccountTransferRecord, Entity, PayinRecord, PlannedBankLineRecord} from '../store/index.js'
import {stepTransfer} from './transfer-steps.js'

/** One thing the clock made happen. */
export interface Happening {
  at: string
  entity: string
  kind: 'transfer' | 'payin' | 'bank_line'
  id: string
  /** The status reached (transfers, payins) or `booked` (bank lines). */
  status: string
}

/** The most steps one move of the clock runs (a guard: each step is one record's change). */
const MAX_STEPS = 1_000_000

type Candidate =
  | {kind: 'transfer'; entity: Entity; rec: AccountTransferRecord}
  | {kind: 'payin'; entity: Entity; rec: PayinRecord}
  | {kind: 'bank_line'; entity: Entity; rec: PlannedBankLineRecord}

function sendDay(rec: {scheduled_date: string | null; created_at: string}): string {
  return rec.scheduled_date ?? scheduleDay(Date.parse(rec.created_at))
}

function asyncReady(entity: Entity, rec: AccountTransferRecord): number {
  const delay = entity.transferSettings.get('delay_ms')
  return delay === undefined ? 0 : Date.parse(rec.status_recorded_at) + Number(delay)
}

/** When a candidate's next step is due (ms), or undefined when it has none. */
function dueAt(c: Candidate): number | undefined {
  if (c.kind === 'bank_line') return startOfDay(c.rec.line.transaction_date)
  const rec = c.rec
  if (rec.held) return undefined
  const lag = SETTLEMENT_LAG_DAYS[rec.rail] ?? 0
  if (c.kind === 'transfer') {
    if (rec.status === 'approved') return Math.max(startOfDay(sendDay(rec)), asyncReady(c.entity, c.rec))
    if (rec.status === 'initiated') return Math.max(startOfDay(addDays(sendDay(rec), lag)), asyncReady(c.entity, c.rec))
    return undefined
  }
  if (rec.status === 'approved' || rec.status === 'initiated') return startOfDay(sendDay(rec))
  if (rec.status === 'debited') return startOfDay(addDays(sendDay(rec), lag))
  return undefined
}

const NEXT_TRANSFER = {approved: 'initiated', initiated: 'settled'} as const
const NEXT_PAYIN = {approved: 'initiated', initiated: 'debited', debited: 'settled'} as const

/** Takes a candidate's next step; returns the status reached (`booked` for a bank line). */
function step(app: AppContext, c: Candidate): string {
  const {store} = app
  if (c.kind === 'transfer') {
    const next = NEXT_TRANSFER[c.rec.status as keyof typeof NEXT_TRANSFER]
    stepTransfer(store, c.entity, c.rec, next)
    return next
  }
  if (c.kind === 'payin') {
    const next = NEXT_PAYIN[c.rec.status as keyof typeof NEXT_PAYIN]
    stepPayin(app, c.entity, c.rec, next)
    return next
  }
  bookPlannedLine(app, c.entity, c.rec)
  return 'booked'
}

/** Books a planned bank line on its account (and its subaccount, if it names one) and forgets the plan. */
export function bookPlannedLine(app: Pick<AppContext, 'store' | 'events'>, entity: Entity, plan: PlannedBankLineRecord): void {
  const {store} = app
  const line = store.treasury.addBankTransaction(entity, plan.account_id, plan.line)
  const sub = plan.line.subaccount_id
  if (sub !== undefined && entity.subaccounts.has(sub)) {
    store.subaccounts.bookFlow(entity, sub, {source: 'bai2', direction: 'credit', amount_in_minor_units: line.amount_in_minor_units, currency_code: line.currency_code, reference_id: line.id})
    app.events.emit(entity.id, 'subaccount.credit_received', {subaccount_id: sub, amount_cents: line.amount_in_minor_units, amount_in_minor_units: line.amount_in_minor_units})
  }
  entity.plannedBankLines.delete(plan.id)
  store.removedRecord(entity.plannedBankLines, plan)
}

function candidates(app: AppContext): Candidate[] {
  const out: Candidate[] = []
  for (const entity of app.store.entities.values()) {
    for (const rec of entity.accountTransfers.items) if (!rec.held && (rec.status === 'approved' || rec.status === 'initiated')) out.push({kind: 'transfer', entity, rec})
    for (const rec of entity.payins.items) if (!rec.held && (rec.status === 'approved' || rec.status === 'initiated' || rec.status === 'debited')) out.push({kind: 'payin', entity, rec})
    for (const rec of entity.plannedBankLines.items) out.push({kind: 'bank_line', entity, rec})
  }
  return out
}

/**
 * Moves the clock to `target` (ms, not before the clock: the caller checks), running what became
 * due on the way in time order (ties in the order the records were made). Returns what happened.
 */
export function moveClock(app: AppContext, target: number): Happening[] {
  return app.store.withClockHeld(() => runUntil(app, target))
}

function runUntil(app: AppContext, target: number): Happening[] {
  const {store} = app
  const pending = candidates(app)
  const happened: Happening[] = []
  for (let n = 0; n < MAX_STEPS && pending.length > 0; n++) {
    let best = -1
    let bestAt = Infinity
    pending.forEach((c, i) => {
      const at = dueAt(c)
      if (at !== undefined && at <= target && (at < bestAt || (at === bestAt && c.rec.seq < pending[best].rec.seq))) {
        best = i
        bestAt = at
      }
    })
    if (best < 0) break
    const c = pending[best]
    if (bestAt > store.nowMs()) store.setClock(bestAt)
    const status = step(app, c)
    happened.push({at: store.now(), entity: c.entity.role, kind: c.kind, id: c.kind === 'bank_line' ? lastLineId(c) : c.rec.id, status})
    if (c.kind === 'bank_line' || dueAt(c) === undefined) pending.splice(best, 1)
  }
  if (target > store.nowMs()) store.setClock(target)
  return happened
}

/** The id of the bank line a planned line became (the newest line of its account). */
function lastLineId(c: Candidate & {kind: 'bank_line'}): string {
  return c.entity.bankTransactions.get(c.rec.account_id)?.items.at(-1)?.id ?? c.rec.id
}
