/**
 * `audit list --team`: the team store's side of the trail — each money request's decision (the
 * intent, allowed or refused, with the database role that recorded it) and what became of it (its
 * outcomes) — for every member, as the store holds them. Read-only; an unreachable store is exit 7.
 */
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import type {Column} from '../output/index.js'

export const TEAM_COLUMNS: Column[] = [
  {key: 'seq'},
  {key: 'at'},
  {key: 'actor'},
  {key: 'record'},
  {key: 'kind'},
  {key: 'status'},
  {key: 'amount', money: {amount: 'amount', currency: 'currency'}},
  {key: 'destination', names: true},
  {key: 'resource_id', header: 'resource'},
]
export const TEAM_KNOWN: Column[] = [...TEAM_COLUMNS, ...['intent_seq', 'currency', 'day', 'detail'].map((key) => ({key}))]

/** One row of the team's trail: an intent, or an outcome of one. */
export interface TeamRow {
  record: 'intent' | 'outcome'
  /** The intent's position (an outcome's: its own; `intent_seq` names its intent). */
  seq: number
  intent_seq: number
  at: string
  actor: string
  kind: string
  status: string
  amount: number | null
  currency: string | null
  destination: string | null
  resource_id: string | null
  detail: Record<string, unknown>
}

/** The team store's intents and outcomes, in the order they were recorded (each outcome after its intent). */
export async function teamTrail(ctx: CommandContext): Promise<{rows: TeamRow[]; location: string}> {
  const {openControlStore, teamBinding} = await import('../control/index.js')
  if (!teamBinding(ctx)) throw new UsageError('No team store is bound (PAYOPS_TEAM_DATABASE_URL, or the profile\'s `team` setting): --team lists the team store\'s records.')
  const store = await openControlStore(ctx)
  try {
    const [intents, outcomes] = [await store.intents(), await store.outcomes()]
    const byIntent = new Map(intents.map((i) => [i.seq, i]))
    const rows: TeamRow[] = intents.map((i) => ({
      record: 'intent', seq: i.seq, intent_seq: i.seq, at: i.at, actor: i.actor, kind: i.kind, status: i.status, amount: i.amount, currency: i.currency,
      destination: i.destination, resource_id: typeof i.detail.resource_id === 'string' ? i.detail.resource_id : null, detail: i.detail,
    }))
    for (const o of outcomes) {
      const i = byIntent.get(o.intent_seq)
      rows.push({
        record: 'outcome', seq: o.seq, intent_seq: o.intent_seq, at: o.at, actor: o.actor, kind: i?.kind ?? '', status: o.status, amount: i?.amount ?? null, currency: i?.currency ?? null,
        destination: i?.destination ?? null, resource_id: typeof o.detail.id === 'string' ? o.detail.id : null, detail: o.detail,
      })
    }
    // By time; an outcome never before its intent (the same instant keeps the intent first).
    rows.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.intent_seq - b.intent_seq || (a.record === b.record ? a.seq - b.seq : a.record === 'intent' ? -1 : 1)))
    return {rows, location: store.location}
  } finally {
    await store.close()
  }
}
