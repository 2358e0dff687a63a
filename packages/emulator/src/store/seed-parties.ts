/**
 * Seeded payers, payees and payins. A small deterministic generator (mulberry32, seeded per entity
 * role and kind) makes names, emails, countries, default payment methods, ids and creation times
 * the same on every start and every reset; only the anchor of the creation times moves (they are
 * spread over the ~2 years before the start of the current UTC day).
 */
import {randomInt} from 'node:crypto'
import {mulberry32, seededRand, type Rand} from './random.js'
import type {EntityRole, Entity, NewParty, PartyKind, PartyRecord, PayinStatusValue, Store} from './index.js'

export const PARTY_SEED_COUNTS: Record<EntityRole, {payers: number; payees: number; payins: number}> = {
  test: {payers: 250, payees: 300, payins: 8},
  test_other: {payers: 5, payees: 5, payins: 2},
  live: {payers: 4, payees: 6, payins: 2},
}

const DAY_MS = 86_400_000
export const SEED_SPAN_DAYS = 730

export {mulberry32, seededRand, type Rand} from './random.js'

const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1))
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]
const digits = (r: Rand, n: number) => Array.from({length: n}, () => int(r, 0, 9)).join('')

/** A version-4-shaped UUID from the generator. */
export function seededUuid(r: Rand): string {
  const hex = Array.from({length: 32}, () => int(r, 0, 15).toString(16))
  hex[12] = '4'
  hex[16] = (8 + int(r, 0, 3)).toString(16)
  const s = hex.join('')
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`
}

/** A 9-digit ABA routing number with a valid prefix and check digit. */
export function seededRoutingNumber(r: Rand): string {
  const prefix = r() < 0.5 ? int(r, 1, 12) : int(r, 21, 32)
  const d = [...String(prefix).padStart(2, '0'), ...digits(r, 6)].map(Number)
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5])
  d.push((10 - (sum % 10)) % 10)
  return d.join('')
}

const FIRST = ['Olivia', 'Liam', 'Amelia', 'Noah', 'Isla', 'Oliver', 'Ava', 'Arjun', 'Priya', 'Rohan', 'Ananya', 'Mia', 'Lucas', 'Emily', 'Jack', 'Sophie', 'Harry', 'Grace', 'Ethan', 'Chloe', 'Vikram', 'Meera', 'Daniel', 'Zoe', 'Samuel', 'Ruby', 'Aditi', 'Kabir', 'Hannah', 'Owen']
const LAST = ['Smith', 'Johnson', 'Patel', 'Williams', 'Brown', 'Sharma', 'Jones', 'Taylor', 'Garcia', 'Davies', 'Singh', 'Evans', 'Miller', 'Wilson', 'Iyer', 'Thomas', 'Roberts', 'Khan', 'Walker', 'Wright', 'Reddy', 'Lopez', 'Hughes', 'Green', 'Nair']
const COMPANY_WORDS = ['Northwind', 'Bluebird', 'Lakeside', 'Summit', 'Harbor', 'Evergreen', 'Redwood', 'Cobalt', 'Meridian', 'Juniper', 'Atlas', 'Sterling']
const COMPANY_KIND = ['Traders', 'Supplies', 'Logistics', 'Studios', 'Foods', 'Labs', 'Partners', 'Works']
const COMPANY_SUFFIX: Record<string, string> = {US: 'LLC', GB: 'Ltd', IN: 'Pvt Ltd'}

const PLACES: Record<'US' | 'GB' | 'IN', Array<{sub: string; city: string; postal: (r: Rand) => string}>> = {
  US: [
    {sub: 'NY', city: 'New York', postal: (r) => `100${digits(r, 2)}`},
    {sub: 'CA', city: 'San Francisco', postal: (r) => `941${digits(r, 2)}`},
    {sub: 'TX', city: 'Austin', postal: (r) => `787${digits(r, 2)}`},
    {sub: 'IL', city: 'Chicago', postal: (r) => `606${digits(r, 2)}`},
  ],
  GB: [
    {sub: 'England', city: 'London', postal: (r) => `EC${int(r, 1, 4)}A ${int(r, 1, 9)}BB`},
    {sub: 'Scotland', city: 'Edinburgh', postal: (r) => `EH${int(r, 1, 17)} ${int(r, 1, 9)}AB`},
    {sub: 'England', city: 'Manchester', postal: (r) => `M${int(r, 1, 60)} ${int(r, 1, 9)}AA`},
  ],
  IN: [
    {sub: 'Maharashtra', city: 'Mumbai', postal: (r) => `400${digits(r, 3)}`},
    {sub: 'Karnataka', city: 'Bengaluru', postal: (r) => `560${digits(r, 3)}`},
    {sub: 'Delhi', city: 'New Delhi', postal: (r) => `110${digits(r, 3)}`},
  ],
}
const STREETS = ['Main St', 'High Street', 'Market Road', 'Park Avenue', 'Station Road', 'Church Lane', 'MG Road', 'Elm Street']

/** One generated payer or payee (without id and creation time). */
export function generateParty(r: Rand, n: number): Omit<NewParty, 'id' | 'created_at'> {
  const roll = r()
  const country: 'US' | 'GB' | 'IN' | null = roll < 0.45 ? 'US' : roll < 0.7 ? 'GB' : roll < 0.9 ? 'IN' : null
  let name: string
  let email: string
  if (r() < 0.3) {
    const base = `${pick(r, COMPANY_WORDS)} ${pick(r, COMPANY_KIND)}`
    name = country ? `${base} ${COMPANY_SUFFIX[country]}` : base
    email = `billing+${n}@${base.toLowerCase().replace(/\s+/g, '')}.example.com`
  } else {
    const first = pick(r, FIRST)
    const last = pick(r, LAST)
    name = `${first} ${last}`
    email = `${first.toLowerCase()}.${last.toLowerCase()}${n}@${pick(r, ['example.com', 'mail.example.org', 'example.net'])}`
  }
  const place = country ? pick(r, PLACES[country]) : undefined
  const withAddress = place !== undefined && r() < 0.85
  const withPostal = withAddress && r() < 0.9
  return {
    name,
    email,
    country_code: country,
    country_sub_division: withAddress ? place.sub : null,
    city: withAddress ? place.city : null,
    address_line: withAddress ? `${int(r, 1, 999)} ${pick(r, STREETS)}` : null,
    postal_code: withPostal ? place.postal(r) : null,
    client_metadata: r() < 0.4 ? {customer_ref: `CUS-${digits(r, 6)}`} : {},
    default_payment_method: r() < 0.6 ? {account_last_four: digits(r, 4), routing_number: seededRoutingNumber(r)} : null,
  }
}

/** `count` parties with creation times spread over the span, oldest first, ids from `r`. */
function generateParties(r: Rand, count: number, anchorMs: number): NewParty[] {
  const times = Array.from({length: count}, () => anchorMs - Math.floor(r() * SEED_SPAN_DAYS * DAY_MS) - 1).sort((a, b) => a - b)
  return times.map((t, i) => ({...generateParty(r, i + 1), id: seededUuid(r), created_at: new Date(t).toISOString()}))
}

/** Adds `count` generated parties created now (the control API), with a random generator. */
export function addGeneratedParties(store: Store, entity: Entity, kind: PartyKind, count: number): PartyRecord[] {
  const r = mulberry32(randomInt(0, 2 ** 32 - 1))
  const base = (kind === 'payer' ? entity.payers : entity.payees).size
  return Array.from({length: count}, (_, i) => store.parties.create(entity, kind, generateParty(r, base + i + 1)))
}

const PAYIN_SEED_STATUSES: PayinStatusValue[] = ['created', 'approved', 'initiated', 'debited', 'settled', 'settled', 'failed', 'canceled']

/** The 15-digit ACH trace number of an initiated payin: the ODFI routing prefix plus a sequence. */
export function endToEndId(routingNumber: string, r: Rand = Math.random): string {
  return `${routingNumber.slice(0, 8)}${digits(r, 7)}`
}

/** Seeds the payers, payees and a few payins of one entity. */
export function seedParties(store: Store, entity: Entity, role: EntityRole, now = Date.now()): void {
  const counts = PARTY_SEED_COUNTS[role]
  const anchor = Math.floor(now / DAY_MS) * DAY_MS
  for (const kind of ['payer', 'payee'] as const) {
    const r = seededRand(`${role}:${kind}`)
    for (const p of generateParties(r, kind === 'payer' ? counts.payers : counts.payees, anchor)) store.parties.create(entity, kind, p)
  }
  const r = seededRand(`${role}:payin`)
  const payers = entity.payers.items.filter((p) => p.default_payment_method !== null)
  const recent = anchor - 30 * DAY_MS
  const times = Array.from({length: counts.payins}, () => recent + Math.floor(r() * 29 * DAY_MS)).sort((a, b) => a - b)
  times.forEach((t, i) => {
    const payer = payers[int(r, 0, payers.length - 1)]
    if (!payer) return
    const status = PAYIN_SEED_STATUSES[i % PAYIN_SEED_STATUSES.length]
    const pm = payer.default_payment_method!
    const initiated = ['initiated', 'debited', 'settled'].includes(status) || (status === 'failed' && r() < 0.5)
    store.payins.create(entity, {
      id: seededUuid(r),
      payer_id: payer.id,
      amount_in_minor_units: int(r, 1, 5000) * 100 + int(r, 0, 99),
      currency_code: 'USD',
      rail: r() < 0.5 ? 'standard_ach' : 'same_day_ach',
      status,
      payment_method: {...pm, end_to_end_id: initiated ? endToEndId(pm.routing_number, r) : null},
      payer: {name: payer.name, email: payer.email},
      client_metadata: r() < 0.5 ? {invoice: `INV-${digits(r, 5)}`} : {},
      scheduled_date: null,
      created_at: new Date(t).toISOString(),
    })
  })
}
