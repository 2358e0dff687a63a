/**
 * One service entity and everything it owns: the tables each area of the store declares (see the
 * `…Tables` interface of each area module). Serialisation is generic over the fields: every
 * {@link Table}, {@link Grouped}, {@link ActivityBook} and `Map<string, string>` field is saved and
 * restored by name, so a new resource area adds its fields here and nothing else.
 *
 * Two forms: the whole entity as one JSON object (`toJSON`/`fromJSON`, the JSON state files of
 * earlier payops), and record by record (`records`/`restoreRecord`, the SQLite state: each record
 * under its field's name, see {@link Place}). In the second form the maps that only index records
 * ({@link Entity.INDEX_FIELDS}) are not saved but rebuilt from the records, and a settled move's
 * activity lines are derived from the move again.
 */
import {ENTITY_ROLES, Grouped, Table, type EntityRole, type Holder, type Mode, type Row} from './core.js'
import {ActivityBook, isFlow, type ActivityRecord, type Direction} from './activity.js'
import {MoveTable, type MoveRecord, type MoveTables} from './moves.js'
import type {PartyRecord, PartyTables} from './parties.js'
import type {PayinRecord, PayinTables} from './payins.js'
import type {SubaccountRecord, SubaccountTables} from './subaccounts.js'
import type {AccountTransferRecord, TransferTables} from './transfers.js'
import {creditReference, mainAccount, type BankTransactionRecord, type TreasuryAccountRecord, type TreasuryTables} from './treasury.js'
import type {WebhookRecord, WebhookTables} from './webhooks.js'
import type {PlannedBankLineRecord, PlannedTables} from './planned.js'

/** What an entity is apart from its records (what a state keeps of it besides them). */
export interface EntityHeader {
  id: string
  role: EntityRole
  name: string
  mode: Mode
  routing_number: string
  created_at: string
}

/** A move whose lines were kept on one side only (an old JSON state): which side is derived. */
interface OneSided extends MoveRecord {
  lines?: Direction
}

export class Entity implements SubaccountTables, MoveTables, TreasuryTables, TransferTables, PartyTables, PayinTables, WebhookTables, PlannedTables {
  readonly id: string
  readonly role: EntityRole
  readonly name: string
  readonly mode: Mode
  /** The ABA routing number of the emulated bank that holds this entity's accounts. */
  readonly routing_number: string
  readonly created_at: string

  // The field order is the order of the saved state; keep it.
  readonly treasuryAccounts = new Table<TreasuryAccountRecord>()
  readonly subaccounts = new Table<SubaccountRecord>()
  /** Saved in the API-like move shape (see MoveTable). */
  readonly moves = new MoveTable()
  /** Activity lines per subaccount id; a settled move's two lines are read from the move. */
  readonly activity = new ActivityBook()
  /** Idempotency-Key -> move id. */
  readonly moveIdempotencyKeys = new Map<string, string>()
  /** Webhook endpoints (each with its own URL, secret and allowlist). */
  readonly webhooks = new Table<WebhookRecord>()
  readonly payers = new Table<PartyRecord>()
  readonly payees = new Table<PartyRecord>()
  readonly payins = new Table<PayinRecord>()
  /** Bank-reported lines per treasury account id. */
  readonly bankTransactions = new Grouped<BankTransactionRecord>()
  /** Sandbox reference (Idempotency-Key of a simulated credit) -> `account_id/bank_transaction_id`. */
  readonly creditReferences = new Map<string, string>()
  readonly accountTransfers = new Table<AccountTransferRecord>()
  /** Idempotency-Key -> account transfer id. */
  readonly transferIdempotencyKeys = new Map<string, string>()
  /** Async initiation of account transfers: `delay_ms` -> milliseconds (absent: synchronous). */
  readonly transferSettings = new Map<string, string>()
  /** Bank lines dated after the clock, booked when it reaches their day (scenarios). */
  readonly plannedBankLines = new Table<PlannedBankLineRecord>()

  constructor(init: {id: string; role: EntityRole; name: string; mode: Mode; routing_number: string; created_at: string}) {
    this.id = init.id
    this.role = init.role
    this.name = init.name
    this.mode = init.mode
    this.routing_number = init.routing_number
    this.created_at = init.created_at
    for (const [k, field] of Object.entries(this)) {
      if (field instanceof Table || field instanceof Grouped || field instanceof ActivityBook) field.bind(this.id, k)
    }
  }

  /** The maps that index records: an SQLite state keeps the records, and these are rebuilt from them. */
  static readonly INDEX_FIELDS: ReadonlySet<string> = new Set(['moveIdempotencyKeys', 'transferIdempotencyKeys', 'creditReferences'])

  header(): EntityHeader {
    return {id: this.id, role: this.role, name: this.name, mode: this.mode, routing_number: this.routing_number, created_at: this.created_at}
  }

  static fromHeader(h: EntityHeader): Entity {
    return Entity.fromJSON(h as unknown as Record<string, unknown>)
  }

  /** The entity's `Map` fields that are not indexes ({@link INDEX_FIELDS}), as objects. */
  savedMaps(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {}
    for (const [k, v] of Object.entries(this)) if (v instanceof Map && !Entity.INDEX_FIELDS.has(k)) out[k] = Object.fromEntries(v)
    return out
  }

  restoreMaps(saved: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(saved)) {
      const field = (this as unknown as Record<string, unknown>)[k]
      if (!(field instanceof Map) || Entity.INDEX_FIELDS.has(k) || !v || typeof v !== 'object') throw new Error(`entity ${this.id}: unknown map "${k}"`)
      field.clear()
      for (const [mk, mv] of Object.entries(v as Record<string, unknown>)) field.set(mk, String(mv))
    }
  }

  /**
   * Every record with the holder that keeps it and its saved form (a full save). A settled move's
   * lines are not records (they are derived from the move), unless an old state kept one of them as
   * a record: then the move says which side is derived.
   */
  *records(): Generator<[Holder, Row, unknown]> {
    const oneSided = this.oneSidedMoves()
    for (const field of Object.values(this)) {
      if (field instanceof MoveTable) {
        for (const m of field.items) {
          const side = oneSided.get(m)
          yield [field, m, side ? ({...m, lines: side} satisfies OneSided) : field.saved(m)]
        }
      } else if (field instanceof Table) {
        for (const r of field.items) yield [field, r, field.saved(r)]
      } else if (field instanceof Grouped) {
        for (const key of [...field.keys()]) {
          const t = field.get(key)!
          for (const r of t.items) yield [t, r, t.saved(r)]
        }
      } else if (field instanceof ActivityBook) {
        for (const list of field.values()) for (const e of list.values()) if (!isFlow(e)) yield [list, e, list.saved(e)]
      }
    }
  }

  /** Settled moves read into only one of their two subaccounts' activity, with that side. */
  private oneSidedMoves(): Map<MoveRecord, Direction> {
    const sides = new Map<MoveRecord, number>()
    for (const list of this.activity.values()) {
      for (const e of list.values()) {
        if (!isFlow(e)) continue
        const m = e as MoveRecord
        const bit = list.subaccountId === m.from_subaccount_id ? 1 : 2
        sides.set(m, (sides.get(m) ?? 0) | bit)
      }
    }
    const out = new Map<MoveRecord, Direction>()
    for (const [m, bits] of sides) if (bits !== 3) out.set(m, bits === 1 ? 'debit' : 'credit')
    return out
  }

  /**
   * Puts back one saved record of field `kind` (group `group` of a grouped field). A settled move's
   * lines go back into both subaccounts' activity; call {@link finishRestore} after the last record.
   */
  restoreRecord(kind: string, group: string, body: unknown): Row {
    const field = Object.hasOwn(this, kind) ? (this as unknown as Record<string, unknown>)[kind] : undefined
    if (field instanceof MoveTable) {
      const m = field.insert(field.restore(body))
      // One string per subaccount id, as moves made at run time share it (not a parsed copy per move).
      m.from_subaccount_id = this.subaccounts.get(m.from_subaccount_id)?.id ?? m.from_subaccount_id
      m.to_subaccount_id = this.subaccounts.get(m.to_subaccount_id)?.id ?? m.to_subaccount_id
      if (m.line_seq !== 0) {
        const lines = (body as OneSided).lines
        if (lines !== 'credit') this.activity.list(m.from_subaccount_id).push(m)
        if (lines !== 'debit') this.activity.list(m.to_subaccount_id).push(m)
      }
      return m
    }
    if (field instanceof Table) return field.insert(field.restore(body))
    if (field instanceof Grouped) return field.table(group).insert(body as Row)
    if (field instanceof ActivityBook) {
      field.list(group).push(body as ActivityRecord)
      return body as Row
    }
    throw new Error(`entity ${this.id}: unknown kind of record "${kind}"`)
  }

  /** After the last {@link restoreRecord}: activity in seq order, and the index maps rebuilt. */
  finishRestore(): void {
    for (const list of this.activity.values()) list.sort()
    this.moveIdempotencyKeys.clear()
    for (const m of this.moves.items) if (m.idempotency_key !== null) this.moveIdempotencyKeys.set(m.idempotency_key, m.id)
    this.transferIdempotencyKeys.clear()
    for (const t of this.accountTransfers.items) if (t.idempotency_key !== null) this.transferIdempotencyKeys.set(t.idempotency_key, t.id)
    this.creditReferences.clear()
    for (const key of this.bankTransactions.keys()) {
      for (const line of this.bankTransactions.get(key)!.items) if (line.sandbox_reference !== undefined) this.creditReferences.set(line.sandbox_reference, creditReference(line))
    }
  }

  /** The main operating account: the first USD account, else the first account. */
  mainAccount(): TreasuryAccountRecord | undefined {
    return mainAccount(this)
  }

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(this)) {
      out[k] = v instanceof Map ? Object.fromEntries(v) : v
    }
    return out
  }

  static fromJSON(json: Record<string, unknown>): Entity {
    const str = (k: string): string => {
      if (typeof json[k] !== 'string') throw new Error(`entity field "${k}" is missing`)
      return json[k] as string
    }
    const role = str('role') as EntityRole
    if (!ENTITY_ROLES.includes(role)) throw new Error(`unknown entity role "${role}"`)
    const mode = str('mode') as Mode
    if (mode !== 'test' && mode !== 'live') throw new Error(`unknown entity mode "${mode}"`)
    const e = new Entity({id: str('id'), role, name: str('name'), mode, routing_number: str('routing_number'), created_at: str('created_at')})
    for (const [k, field] of Object.entries(e)) {
      const v = json[k]
      if (v === undefined || v === null) continue
      // `moves` comes before `activity`: the activity of settled moves is matched back to them.
      if (field instanceof ActivityBook) field.load(v as Record<string, ActivityRecord[]>, e.moves)
      else if (field instanceof Table) field.load(v as Row[])
      else if (field instanceof Grouped) field.load(v as Record<string, Row[]>)
      else if (field instanceof Map) for (const [mk, mv] of Object.entries(v as Record<string, unknown>)) field.set(mk, mv)
    }
    return e
  }
}
