/**
 * Puts a checked scenario (schema.ts) into a store, in one step: every entity's data is dropped,
 * the clock moves to the scenario's instant (backwards too: nothing is left that was stamped
 * later), the other entities are seeded afresh and the test entity (same id, so every API key
 * keeps working) gets the scenario's world. Opening balances are credits dated `opening_date`
 * (default: the day before the clock's); bank lines dated after the clock's day wait for the clock (scheduler.ts). Nothing here
 * emits an event: what the clock makes happen later does.
 */
import {randomInt} from 'node:crypto'
import {generateSecret} from '../webhooks/signature.js'
import {setFeed} from '../bank-feed/bank-feed.js'
import {addDays, parseInstant, scheduleDay} from '../clock/clock.js'
import {seedEntity} from '../store/seed.js'
import {endToEndId} from '../store/seed-parties.js'
import {ENTITY_ROLES, newId, randomRoutingNumber, type Entity, type NewBankTransaction, type Store, type TreasuryAccountRecord} from '../store/index.js'
import {stepTransfer} from '../lifecycle/transfer-steps.js'
import {currencyOf, mainEntry, minorOf, type Scenario} from './schema.js'

export interface ScenarioSummary {
  name: string | null
  accounts: number
  subaccounts: number
  payers: number
  payees: number
  moves: number
  transfers: number
  payins: number
  bank_lines: number
  planned_bank_lines: number
  webhooks: number
}

/** Minor units of an amount the check already accepted. */
function minor(amount: string | number, currency: string): number {
  const m = minorOf(amount, currency)
  if (typeof m === 'string') throw new Error(m)
  return m
}

interface World {
  store: Store
  entity: Entity
  accounts: Map<string, TreasuryAccountRecord>
  subaccounts: Map<string, string>
  /** The clock's day in the schedule timezone. */
  today: string
  planned: number
}

export function applyScenario(store: Store, s: Scenario): ScenarioSummary {
  const ids = new Map([...store.entities.values()].map((e) => [e.role, e.id]))
  const clock = s.clock === undefined ? undefined : parseInstant(s.clock)
  store.clearData()
  if (clock !== undefined) store.setClock(clock, true)
  for (const role of ENTITY_ROLES) if (role !== 'test') seedEntity(store, role, ids.get(role))
  const entity = store.addEntity({role: 'test', name: s.name ?? 'Scenario Sandbox', mode: 'test', id: ids.get('test')})
  const w: World = {store, entity, accounts: new Map(), subaccounts: new Map(), today: scheduleDay(store.nowMs()), planned: 0}
  addAccounts(w, s)
  addParties(w, s)
  addMoves(w, s)
  addTransfers(w, s)
  addPayins(w, s)
  for (const l of s.bank_lines ?? []) {
    const account = w.accounts.get(l.account)!
    const line: NewBankTransaction = {
      amount_in_minor_units: minor(l.amount, account.currency_code),
      currency_code: account.currency_code,
      description: l.description ?? (l.direction === 'credit' ? 'CREDIT' : 'DEBIT'),
      sender_info: l.sender_info,
      receiver_info: l.receiver_info,
      direction: l.direction,
      transaction_date: l.date ?? w.today,
      subaccount_id: l.subaccount === undefined ? undefined : w.subaccounts.get(l.subaccount),
    }
    bookLine(w, account, line)
  }
  for (const h of s.webhooks ?? []) store.webhooks.create(entity, {url: h.url, description: h.description ?? null, event_types: h.event_types, secret: h.secret ?? generateSecret()})
  if (s.bank_feed) setFeed(store, entity, {enabled: true, fee_rate: s.bank_feed.fee_rate, seed: s.bank_feed.seed})
  const count = (list?: readonly unknown[]) => list?.length ?? 0
  return {
    name: s.name ?? null,
    accounts: s.accounts.length,
    subaccounts: count(s.subaccounts),
    payers: count(s.payers),
    payees: count(s.payees),
    moves: count(s.moves),
    transfers: count(s.transfers),
    payins: count(s.payins),
    bank_lines: count(s.bank_lines) - w.planned,
    planned_bank_lines: w.planned,
    webhooks: count(s.webhooks),
  }
}

/** Books a line now, or plans it for its day when that is after the clock's; a subaccount's credit is booked to it too. */
function bookLine(w: World, account: TreasuryAccountRecord, line: NewBankTransaction): void {
  const {store, entity} = w
  const date = line.transaction_date ?? w.today
  if (date > w.today) {
    const rec = {id: newId(), seq: store.nextSeq(), account_id: account.id, line: {...line, transaction_date: date}}
    entity.plannedBankLines.insert(rec)
    store.changedRecord(entity.plannedBankLines, rec)
    w.planned++
    return
  }
  const booked = store.treasury.addBankTransaction(entity, account.id, line)
  if (line.subaccount_id === undefined) return
  store.subaccounts.bookFlow(entity, line.subaccount_id, {
    source: 'bai2',
    direction: 'credit',
    amount_in_minor_units: booked.amount_in_minor_units,
    currency_code: booked.currency_code,
    effective_at: `${date}T00:00:00.000Z`,
    reference_id: booked.id,
  })
}

function addAccounts(w: World, s: Scenario): void {
  const {store, entity} = w
  const opening = s.opening_date ?? addDays(w.today, -1)
  // The main account (the first USD one) is created first, as the emulator's main account is.
  const main = mainEntry(s)
  for (const a of [main, ...s.accounts.filter((x) => x !== main)]) {
    const rec = store.treasury.createAccount(entity, {label: a.label ?? a.name, currency_code: currencyOf(a), simulated: a.simulated ?? true})
    w.accounts.set(a.name, rec)
    if (a.balance !== undefined) {
      bookLine(w, rec, {amount_in_minor_units: minor(a.balance, rec.currency_code), currency_code: rec.currency_code, description: 'OPENING BALANCE', direction: 'credit', transaction_date: opening})
    }
  }
  const mainRec = w.accounts.get(main.name)!
  for (const sub of s.subaccounts ?? []) {
    const rec = store.subaccounts.create(entity, {name: sub.name, currency_code: mainRec.currency_code})
    w.subaccounts.set(sub.name, rec.id)
    if (sub.balance === undefined) continue
    const amount = minor(sub.balance, mainRec.currency_code)
    bookLine(w, mainRec, {amount_in_minor_units: amount, currency_code: mainRec.currency_code, description: 'ACH CREDIT', sender_info: `Funding for ${sub.name}`, direction: 'credit', transaction_date: opening, subaccount_id: rec.id})
  }
}

function addParties(w: World, s: Scenario): void {
  for (const kind of ['payer', 'payee'] as const) {
    for (const p of (kind === 'payer' ? s.payers : s.payees) ?? []) {
      w.store.parties.create(w.entity, kind, {
        name: p.name,
        email: p.email,
        country_code: p.country_code ?? null,
        country_sub_division: p.country_sub_division ?? null,
        city: p.city ?? null,
        address_line: p.address_line ?? null,
        postal_code: p.postal_code ?? null,
        client_metadata: p.metadata ?? {},
        default_payment_method: {account_last_four: String(randomInt(0, 10_000)).padStart(4, '0'), routing_number: randomRoutingNumber()},
      })
    }
  }
}

function addMoves(w: World, s: Scenario): void {
  const {store, entity} = w
  for (const m of s.moves ?? []) {
    const rec = store.moves.create(entity, {
      from_subaccount_id: w.subaccounts.get(m.from)!,
      to_subaccount_id: w.subaccounts.get(m.to)!,
      amount_in_minor_units: minor(m.amount, 'USD'),
      currency_code: 'USD',
      client_metadata: m.metadata,
    })
    const status = m.status ?? 'settled'
    if (status === 'approved' || status === 'settled') store.moves.setStatus(rec, 'approved')
    if (status === 'settled') store.moves.settle(entity, rec)
    if (status === 'canceled' || status === 'failed') store.moves.setStatus(rec, status)
  }
}

const TRANSFER_PATH = {created: [], approved: ['approved'], initiated: ['approved', 'initiated'], settled: ['approved', 'initiated', 'settled'], failed: ['approved', 'initiated', 'failed'], canceled: ['canceled']} as const

function addTransfers(w: World, s: Scenario): void {
  const {store, entity} = w
  for (const t of s.transfers ?? []) {
    const from = w.accounts.get(t.from)!
    const to = w.accounts.get(t.to)!
    const rec = store.transfers.create(entity, {
      from_account_id: from.id,
      to_account_id: to.id,
      amount_in_minor_units: minor(t.amount, from.currency_code),
      currency_code: from.currency_code,
      rail: t.rail,
      client_metadata: t.metadata ?? null,
      scheduled_date: t.scheduled_date ?? null,
    })
    if (t.hold) rec.held = true
    for (const status of TRANSFER_PATH[t.status ?? 'approved']) stepTransfer(store, entity, rec, status)
    store.changedRecord(entity.accountTransfers, rec)
  }
}

function addPayins(w: World, s: Scenario): void {
  const {store, entity} = w
  for (const p of s.payins ?? []) {
    const payer = entity.payers.items.find((x) => x.name === p.payer || x.email === p.payer)!
    const pm = payer.default_payment_method!
    const status = p.status ?? 'approved'
    const initiated = ['initiated', 'debited', 'settled'].includes(status)
    store.payins.create(entity, {
      payer_id: payer.id,
      amount_in_minor_units: minor(p.amount, 'USD'),
      currency_code: 'USD',
      rail: p.rail ?? 'standard_ach',
      status,
      payment_method: {...pm, end_to_end_id: initiated ? endToEndId(pm.routing_number) : null},
      payer: {name: payer.name, email: payer.email},
      client_metadata: p.metadata ?? {},
      scheduled_date: p.scheduled_date ?? null,
      ...(p.hold ? {held: true} : {}),
    })
  }
}
