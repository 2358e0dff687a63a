/**
 * One service entity and everything it owns: the tables each area of the store declares (see the
 * `…Tables` interface of each area module). Serialisation is generic over the fields: every
 * {@link Table}, {@link Grouped}, {@link ActivityBook} and `Map<string, string>` field is saved and
 * restored by name, so a new resource area adds its fields here and nothing else.
 */
import {ENTITY_ROLES, Grouped, Table, type EntityRole, type Mode, type Row} from './core.js'
import {ActivityBook, type ActivityRecord} from './activity.js'
import {MoveTable, type MoveTables} from './moves.js'
import type {PartyRecord, PartyTables} from './parties.js'
import type {PayinRecord, PayinTables} from './payins.js'
import type {SubaccountRecord, SubaccountTables} from './subaccounts.js'
import type {AccountTransferRecord, TransferTables} from './transfers.js'
import {mainAccount, type BankTransactionRecord, type TreasuryAccountRecord, type TreasuryTables} from './treasury.js'
import type {WebhookRecord, WebhookTables} from './webhooks.js'

export class Entity implements SubaccountTables, MoveTables, TreasuryTables, TransferTables, PartyTables, PayinTables, WebhookTables {
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

  constructor(init: {id: string; role: EntityRole; name: string; mode: Mode; routing_number: string; created_at: string}) {
    this.id = init.id
    this.role = init.role
    this.name = init.name
    this.mode = init.mode
    this.routing_number = init.routing_number
    this.created_at = init.created_at
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
