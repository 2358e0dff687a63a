/**
 * The emulator's bank feed: how the bank reports a settled account transfer on the accounts'
 * bank-reported lines. Off by default (each settlement books its two lines dated the day it
 * settles, as before). Turned on per entity through the control API (routes/books.ts), it is
 * realistic and reproducible:
 *
 * - a settlement lag per rail ({@link SETTLEMENT_LAG_DAYS}): the lines are dated the transfer's
 *   send day (its `scheduled_date`, else the day it was created in America/New_York) plus the rail's lag;
 * - occasional fees as separate bank lines: with probability `fee_rate`, a settlement also books a
 *   debit of the rail's fee ({@link RAIL_FEES_MINOR}) on the source account, the same day. Whether a
 *   settlement pays a fee is drawn from a generator seeded with `seed` and the number of the
 *   settlement within the entity (0, 1, 2…), so the same seed and the same sequence of settlements
 *   give the same fees.
 *
 * The settings live in the entity's `transferSettings` map (saved with the state) under `feed_*`.
 */
import {sendDayOf} from '../clock/clock.js'
import {seededRand} from '../store/random.js'
import type {AccountTransferRecord, Entity, Store, TreasuryAccountRecord} from '../store/index.js'

/** Calendar days between a transfer's send day and the day its bank lines are dated. */
export const SETTLEMENT_LAG_DAYS: Readonly<Record<string, number>> = {
  instant_card: 0,
  instant_bank: 0,
  same_day_ach: 0,
  standard_ach: 2,
  wire: 0,
}

/** The fee a bank charges per rail, in minor units of the source account's currency. */
export const RAIL_FEES_MINOR: Readonly<Record<string, number>> = {
  instant_card: 150,
  instant_bank: 50,
  same_day_ach: 100,
  standard_ach: 25,
  wire: 2500,
}

export interface FeedSettings {
  enabled: boolean
  /** Probability (0 to 1) that a settlement also books a fee line. */
  fee_rate: number
  seed: number
  /** Settlements booked so far with the feed on (numbers the fee draws). */
  settlements: number
}

export function feedSettings(entity: Entity): FeedSettings {
  const m = entity.transferSettings
  return {
    enabled: m.get('feed_enabled') === '1',
    fee_rate: Number(m.get('feed_fee_rate') ?? 0),
    seed: Number(m.get('feed_seed') ?? 0),
    settlements: Number(m.get('feed_settlements') ?? 0),
  }
}

export function setFeed(store: Store, entity: Entity, s: {enabled: boolean; fee_rate?: number; seed?: number}): FeedSettings {
  const m = entity.transferSettings
  if (s.enabled) {
    m.set('feed_enabled', '1')
    m.set('feed_fee_rate', String(s.fee_rate ?? 0))
    m.set('feed_seed', String(s.seed ?? 0))
    m.set('feed_settlements', '0')
  } else {
    for (const k of ['feed_enabled', 'feed_fee_rate', 'feed_seed', 'feed_settlements']) m.delete(k)
  }
  store.changed()
  return feedSettings(entity)
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

/** The day a settled transfer's bank lines are dated: today with the feed off, else send day + lag. */
export function lineDate(entity: Entity, t: AccountTransferRecord, today: string): string {
  if (!feedSettings(entity).enabled) return today
  const sendDay = sendDayOf(t) ?? today
  return addDays(sendDay, SETTLEMENT_LAG_DAYS[t.rail] ?? 0)
}

/** With the feed on, books the fee line a settlement may draw (after the transfer's own lines). */
export function afterSettlement(store: Store, entity: Entity, t: AccountTransferRecord, from: TreasuryAccountRecord | undefined, date: string): void {
  const s = feedSettings(entity)
  if (!s.enabled || !from) return
  const n = s.settlements
  entity.transferSettings.set('feed_settlements', String(n + 1))
  store.changed()
  if (seededRand(`${s.seed}|${n}`)() >= s.fee_rate) return
  store.treasury.addBankTransaction(entity, from.id, {
    amount_in_minor_units: RAIL_FEES_MINOR[t.rail] ?? 100,
    currency_code: from.currency_code,
    description: `${t.rail.toUpperCase()} FEE`,
    direction: 'debit',
    transaction_date: date,
  })
}
