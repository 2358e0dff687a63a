/**
 * The emulator's state, split by area like `routes/`: this module keeps
 * the entities and their API keys and saves/restores the whole; each area's records and
 * operations live in their own module (subaccounts, moves, treasury, transfers, parties, payins,
 * tokens, webhooks) and are reached as `store.<area>`, as the client reaches `api.<area>`.
 * Everything stored serialises to JSON: `--state FILE` keeps each record's JSON in SQLite, written
 * as the store reports each change (see core.ts and persist/), and earlier payops
 * kept the whole store as one JSON document ({@link Store.toJSON}/{@link Store.fromJSON}, still read
 * to convert such a file). Compact records, such as moves and the activity lines read from them,
 * are saved through their table's `saved`/`toJSON`; wire shapes (views) are built by the route
 * modules.
 */
import {randomBytes} from 'node:crypto'
import {Grouped, StoreCore, Table, newId, randomRoutingNumber, type EntityRole, type Mode} from './core.js'
import {ActivityBook} from './activity.js'
import {Entity, type EntityHeader} from './entity.js'
import {MovesStore} from './moves.js'
import {PartiesStore} from './parties.js'
import {PayinsStore} from './payins.js'
import {SubaccountsStore} from './subaccounts.js'
import {TokensStore} from './tokens.js'
import {TransfersStore} from './transfers.js'
import {TreasuryStore} from './treasury.js'
import {WebhooksStore} from './webhooks.js'

export * from './core.js'
export {Entity} from './entity.js'
export type {EntityHeader} from './entity.js'
export type {MoveRecord, MoveStatus, MoveTables, NewMove, SavedMove, StoredMove} from './moves.js'
export {MoveTable} from './moves.js'
export {ActivityBook, ActivityList, isFlow, lineId} from './activity.js'
export type {NewParty, PartyKind, PartyRecord, PartyTables, PaymentMethodRecord} from './parties.js'
export type {NewPayin, PayinRecord, PayinStatusValue, PayinTables} from './payins.js'
export type {ActivityEntry, ActivityRecord, ActivitySource, Booking, Direction, NewActivity, SettledFlow, SubaccountRecord, SubaccountTables} from './subaccounts.js'
export type {AccountTransferRecord, NewAccountTransfer, TransferStatus, TransferTables} from './transfers.js'
export type {BankTransactionRecord, NewBankTransaction, TreasuryAccountRecord, TreasuryTables} from './treasury.js'
export type {WebhookRecord, WebhookTables} from './webhooks.js'
export type {PlannedBankLineRecord, PlannedTables} from './planned.js'
export {MovesStore, PartiesStore, PayinsStore, SubaccountsStore, TokensStore, TransfersStore, TreasuryStore, WebhooksStore}

export interface ApiKeyRecord {
  key: string
  entity_id: string
  read_only: boolean
  created_at: string
}

export interface EmulatorKeys {
  test: string
  test_other: string
  live: string
}

const STATE_VERSION = 1

/** What a saved state keeps of the store itself, besides entities, keys and records. */
export interface StoreMeta {
  seq: number
  clock: number
  /** Milliseconds the clock runs ahead of (or behind) the wall clock (absent: 0). */
  clock_offset?: number
  primary_keys: Partial<Record<EntityRole, string>>
  session_signing_secret?: string
}

/** An entity as a saved state keeps it apart from its records: its header and its (non-index) maps. */
export interface SavedEntity extends EntityHeader {
  maps?: Record<string, unknown>
}

/** One saved record: its place (see {@link Place}) and its saved form. */
export interface SavedRecord {
  owner: string
  kind: string
  group: string
  body: unknown
}

export class Store extends StoreCore {
  readonly entities = new Map<string, Entity>()
  readonly apiKeys = new Map<string, ApiKeyRecord>()
  /** The first full-access key issued to each seeded entity: what `emulator start` prints. */
  readonly primaryKeys: Partial<Record<EntityRole, string>> = {}

  readonly subaccounts = new SubaccountsStore(this)
  readonly moves = new MovesStore(this, this.subaccounts, () => this.entities.values())
  readonly treasury = new TreasuryStore(this, this.subaccounts)
  readonly transfers = new TransfersStore(this)
  readonly parties = new PartiesStore(this)
  readonly payins = new PayinsStore(this)
  readonly tokens = new TokensStore(this)
  readonly webhooks = new WebhooksStore(this)

  // ---- entities and keys ----

  addEntity(init: {role: EntityRole; name: string; mode: Mode; id?: string}): Entity {
    const e = new Entity({
      id: init.id ?? newId(),
      role: init.role,
      name: init.name,
      mode: init.mode,
      routing_number: randomRoutingNumber(),
      created_at: this.now(),
    })
    this.entities.set(e.id, e)
    this.changed()
    return e
  }

  entityByRole(role: EntityRole): Entity | undefined {
    for (const e of this.entities.values()) if (e.role === role) return e
    return undefined
  }

  /** Issues a new random key (`test_…`/`live_…` by the entity's mode), or registers `key` as given. */
  issueKey(entity: Entity, opts: {readOnly?: boolean; key?: string} = {}): ApiKeyRecord {
    const key = opts.key ?? `${entity.mode}_${randomBytes(16).toString('hex')}`
    const rec: ApiKeyRecord = {key, entity_id: entity.id, read_only: opts.readOnly ?? false, created_at: this.now()}
    this.apiKeys.set(key, rec)
    if (!rec.read_only && this.primaryKeys[entity.role] === undefined) this.primaryKeys[entity.role] = key
    this.changed()
    return rec
  }

  /** The caller behind an API key, or undefined when the key is unknown. */
  authenticate(key: string): {key: ApiKeyRecord; entity: Entity} | undefined {
    const rec = this.apiKeys.get(key)
    if (!rec) return undefined
    const entity = this.entities.get(rec.entity_id)
    return entity ? {key: rec, entity} : undefined
  }

  keys(): EmulatorKeys {
    const k = this.primaryKeys
    if (!k.test || !k.test_other || !k.live) throw new Error('the store has not been seeded with its three entities')
    return {test: k.test, test_other: k.test_other, live: k.live}
  }

  /** Drops every entity and resource; API keys (and which entity id they name) stay. */
  clearData(): void {
    this.entities.clear()
    this.subaccounts.clear()
    this.cleared()
  }

  // ---- persistence, record by record (the SQLite state) ----

  meta(): StoreMeta {
    const {seq, clock, offset} = this.counters()
    const out: StoreMeta = {seq, clock, primary_keys: {...this.primaryKeys}}
    if (offset !== 0) out.clock_offset = offset
    const secret = this.tokens.saved()
    if (secret !== undefined) out.session_signing_secret = secret
    return out
  }

  savedEntity(e: Entity): SavedEntity {
    const maps = e.savedMaps()
    return Object.keys(maps).length === 0 ? e.header() : {...e.header(), maps}
  }

  /**
   * A store put back from a saved state: its meta, entities (in order) and keys, then every record
   * (streamed; in seq order they load fastest). Sequence numbers resume past everything loaded.
   */
  static restore(saved: {meta: StoreMeta; entities: Iterable<SavedEntity>; apiKeys: Iterable<ApiKeyRecord>; records: Iterable<SavedRecord>}): Store {
    const s = new Store()
    for (const se of saved.entities) {
      const {maps, ...header} = se
      const e = Entity.fromHeader(header)
      if (maps) e.restoreMaps(maps)
      s.entities.set(e.id, e)
    }
    for (const k of saved.apiKeys) {
      if (typeof k?.key !== 'string' || typeof k.entity_id !== 'string') throw new Error('a malformed API key record')
      s.apiKeys.set(k.key, {key: k.key, entity_id: k.entity_id, read_only: k.read_only === true, created_at: String(k.created_at ?? '')})
    }
    Object.assign(s.primaryKeys, saved.meta.primary_keys ?? {})
    let maxSeq = typeof saved.meta.seq === 'number' ? saved.meta.seq : 0
    let entity: Entity | undefined
    for (const r of saved.records) {
      if (entity?.id !== r.owner) entity = s.entities.get(r.owner)
      if (!entity) throw new Error(`a record of unknown entity ${r.owner}`)
      const row = entity.restoreRecord(r.kind, r.group, r.body)
      if (!Number.isSafeInteger(row?.seq) || typeof row.id !== 'string') throw new Error(`a ${r.kind} record without a valid id and seq`)
      if (row.seq > maxSeq) maxSeq = row.seq
      const lineSeq = (row as {line_seq?: number}).line_seq
      if (typeof lineSeq === 'number' && lineSeq + 1 > maxSeq) maxSeq = lineSeq + 1
    }
    for (const e of s.entities.values()) {
      e.finishRestore()
      s.subaccounts.remember(e)
    }
    s.seq = maxSeq
    s.clock = typeof saved.meta.clock === 'number' ? saved.meta.clock : 0
    if (typeof saved.meta.clock_offset === 'number' && Number.isFinite(saved.meta.clock_offset)) s.offset = saved.meta.clock_offset
    if (typeof saved.meta.session_signing_secret === 'string') s.tokens.restore(saved.meta.session_signing_secret)
    return s
  }

  // ---- persistence ----

  toJSON(): Record<string, unknown> {
    return {
      version: STATE_VERSION,
      seq: this.seq,
      clock: this.clock,
      primary_keys: this.primaryKeys,
      api_keys: [...this.apiKeys.values()],
      entities: [...this.entities.values()].map((e) => e.toJSON()),
      session_signing_secret: this.tokens.saved(),
    }
  }

  static fromJSON(json: unknown): Store {
    if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error('state is not a JSON object')
    const j = json as Record<string, unknown>
    if (j.version !== STATE_VERSION) throw new Error(`unsupported state version ${String(j.version)} (expected ${STATE_VERSION})`)
    if (!Array.isArray(j.entities) || !Array.isArray(j.api_keys)) throw new Error('state lacks "entities" or "api_keys"')
    const s = new Store()
    for (const ej of j.entities as Array<Record<string, unknown>>) {
      const e = Entity.fromJSON(ej)
      s.entities.set(e.id, e)
      s.subaccounts.remember(e)
    }
    for (const k of j.api_keys as ApiKeyRecord[]) {
      if (typeof k?.key !== 'string' || typeof k.entity_id !== 'string') throw new Error('state has a malformed API key record')
      s.apiKeys.set(k.key, {key: k.key, entity_id: k.entity_id, read_only: k.read_only === true, created_at: String(k.created_at ?? '')})
    }
    Object.assign(s.primaryKeys, (j.primary_keys ?? {}) as Record<string, string>)
    // Sequence numbers and the clock resume past everything already stored.
    let maxSeq = typeof j.seq === 'number' ? j.seq : 0
    for (const e of s.entities.values()) {
      for (const field of Object.values(e)) {
        if (field instanceof Table) maxSeq = Math.max(maxSeq, field.items.at(-1)?.seq ?? 0)
        else if (field instanceof ActivityBook) maxSeq = Math.max(maxSeq, field.maxSeq())
        else if (field instanceof Grouped) for (const key of field.keys()) maxSeq = Math.max(maxSeq, field.get(key)?.items.at(-1)?.seq ?? 0)
      }
    }
    s.seq = maxSeq
    s.clock = typeof j.clock === 'number' ? j.clock : 0
    if (typeof j.session_signing_secret === 'string') s.tokens.restore(j.session_signing_secret)
    return s
  }
}
