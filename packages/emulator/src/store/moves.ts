/**
 * Moves between subaccounts: creation (bound to its Idempotency-Key), status changes and
 * settlement, which books a debit and a credit through the subaccounts area. A move that could not
 * settle (a total would leave the exact range) is refused before anything is written.
 *
 * A move is kept compactly (an emulator may hold millions): times as milliseconds, formatted when
 * shown or saved; no metadata object when it has none; its two activity lines read from it rather
 * than copied (see activity.ts). The saved shape ({@link SavedMove}) is the API-like one.
 */
import type {MoveStatus} from '../interface/moves.js'
import type {SettledFlow} from './activity.js'
import {Table, flat, iso, newId, type Row, type StoreCore} from './core.js'
import type {SubaccountTables, SubaccountsStore} from './subaccounts.js'

export type {MoveStatus} from '../interface/moves.js'

export interface MoveRecord extends SettledFlow {
  status: MoveStatus
  /** When the status last changed (ms since the epoch): `status_recorded_at` and `updated_at`. */
  status_ms: number
  created_ms: number
  /** NaN until it settles. */
  settled_ms: number
  /** null when it has none (shown as `{}`). */
  client_metadata: Record<string, string> | null
  idempotency_key: string | null
}

/** A move as a state file keeps it. */
export interface SavedMove extends Row {
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency_code: string
  status: MoveStatus
  status_recorded_at: string
  client_metadata: Record<string, string>
  idempotency_key: string | null
  settled_at: string | null
  created_at: string
  updated_at: string
}

export interface NewMove {
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency_code: string
  client_metadata?: Record<string, string>
  idempotency_key?: string | null
}

/**
 * A move as an SQLite state keeps it: the compact record itself (times in ms since the epoch, a
 * move not settled has `settled_ms` null), with `line_seq`, the seq of its debit line (its two
 * activity lines are derived from it again when the state is loaded). Serialised without copying.
 */
export type StoredMove = Omit<MoveRecord, 'settled_ms'> & {settled_ms: number | null}

/**
 * Moves by id and in seq order; saved in a JSON state in the {@link SavedMove} shape, and in an
 * SQLite state as {@link StoredMove}.
 */
export class MoveTable extends Table<MoveRecord> {
  override toJSON(): MoveRecord[] {
    return this.items.map(savedMove) as unknown as MoveRecord[]
  }

  /** The record as it is (JSON writes its NaN `settled_ms` as null). */
  override saved(m: MoveRecord): MoveRecord {
    return m
  }

  override restore(saved: unknown): MoveRecord {
    return moveFromStored(saved as StoredMove)
  }

  override load(rows: readonly unknown[]): void {
    super.load(rows.map((r) => moveFromSaved(r as SavedMove)))
  }
}

export function savedMove(m: MoveRecord): SavedMove {
  const at = iso(m.status_ms)
  return {
    id: m.id,
    seq: m.seq,
    from_subaccount_id: m.from_subaccount_id,
    to_subaccount_id: m.to_subaccount_id,
    amount_in_minor_units: m.amount_in_minor_units,
    currency_code: m.currency_code,
    status: m.status,
    status_recorded_at: at,
    client_metadata: m.client_metadata ?? {},
    idempotency_key: m.idempotency_key,
    settled_at: Number.isNaN(m.settled_ms) ? null : iso(m.settled_ms),
    created_at: iso(m.created_ms),
    updated_at: at,
  }
}

function moveFromSaved(s: SavedMove): MoveRecord {
  const ms = (field: string, v: unknown): number => {
    const t = typeof v === 'string' ? Date.parse(v) : Number.NaN
    if (Number.isNaN(t)) throw new Error(`move ${s.id}: ${field} is not a date-time`)
    return t
  }
  const meta = s.client_metadata
  return record({
    id: s.id,
    seq: s.seq,
    from_subaccount_id: s.from_subaccount_id,
    to_subaccount_id: s.to_subaccount_id,
    amount_in_minor_units: s.amount_in_minor_units,
    currency_code: s.currency_code,
    status: s.status,
    status_ms: ms('status_recorded_at', s.status_recorded_at ?? s.updated_at),
    created_ms: ms('created_at', s.created_at),
    settled_ms: s.settled_at == null ? Number.NaN : ms('settled_at', s.settled_at),
    client_metadata: meta && typeof meta === 'object' && Object.keys(meta).length > 0 ? meta : null,
    idempotency_key: s.idempotency_key ?? null,
  })
}

function moveFromStored(s: StoredMove): MoveRecord {
  const num = (field: string, v: unknown): number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`move ${s?.id}: ${field} is not a number`)
    return v
  }
  if (typeof s?.id !== 'string' || typeof s.from_subaccount_id !== 'string' || typeof s.to_subaccount_id !== 'string' || typeof s.status !== 'string' || typeof s.currency_code !== 'string') {
    throw new Error(`move ${s?.id}: a malformed record`)
  }
  const meta = s.client_metadata
  const m = record({
    id: s.id,
    seq: num('seq', s.seq),
    from_subaccount_id: s.from_subaccount_id,
    to_subaccount_id: s.to_subaccount_id,
    amount_in_minor_units: num('amount_in_minor_units', s.amount_in_minor_units),
    currency_code: s.currency_code,
    status: s.status,
    status_ms: num('status_ms', s.status_ms),
    created_ms: num('created_ms', s.created_ms),
    settled_ms: s.settled_ms == null ? Number.NaN : num('settled_ms', s.settled_ms),
    client_metadata: meta && typeof meta === 'object' && Object.keys(meta).length > 0 ? meta : null,
    idempotency_key: typeof s.idempotency_key === 'string' ? s.idempotency_key : null,
  })
  if (typeof s.line_seq === 'number' && s.line_seq > 0) m.line_seq = s.line_seq
  return m
}

/** Every move is built here, its fields always in this order (one object shape for them all). */
function record(f: Omit<MoveRecord, 'line_seq'>): MoveRecord {
  return {
    id: f.id,
    seq: f.seq,
    from_subaccount_id: f.from_subaccount_id,
    to_subaccount_id: f.to_subaccount_id,
    amount_in_minor_units: f.amount_in_minor_units,
    currency_code: f.currency_code,
    status: f.status,
    status_ms: f.status_ms,
    created_ms: f.created_ms,
    settled_ms: f.settled_ms,
    line_seq: 0,
    client_metadata: f.client_metadata,
    idempotency_key: f.idempotency_key,
  }
}

/** What an entity keeps for this area. */
export interface MoveTables {
  readonly moves: Table<MoveRecord>
  /** Idempotency-Key -> move id. */
  readonly moveIdempotencyKeys: Map<string, string>
}

type MoveOwner = MoveTables & SubaccountTables

export class MovesStore {
  constructor(
    private readonly core: StoreCore,
    private readonly subaccounts: SubaccountsStore,
    /** Every entity, to find the one a move belongs to. */
    private readonly entities: () => Iterable<MoveOwner>,
  ) {}

  /**
   * Creates a move in `created` and binds its Idempotency-Key (if any) to it. A move that could not
   * settle now (a total would leave the exact range) is refused here, so an auto-approving create
   * fails before the move exists.
   */
  create(entity: MoveOwner, input: NewMove): MoveRecord {
    this.assertCanSettle(entity, input)
    const now = this.core.nowMs()
    const meta = input.client_metadata
    const rec = record({
      id: newId(),
      seq: this.core.nextSeq(),
      from_subaccount_id: input.from_subaccount_id,
      to_subaccount_id: input.to_subaccount_id,
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: input.currency_code,
      status: 'created',
      status_ms: now,
      created_ms: now,
      settled_ms: Number.NaN,
      client_metadata: meta && Object.keys(meta).length > 0 ? meta : null,
      idempotency_key: input.idempotency_key == null ? null : flat(input.idempotency_key),
    })
    entity.moves.insert(rec)
    if (rec.idempotency_key !== null) entity.moveIdempotencyKeys.set(rec.idempotency_key, rec.id)
    this.core.changedRecord(entity.moves, rec)
    return rec
  }

  /** The move an Idempotency-Key was used for, if any. */
  byIdempotencyKey(entity: MoveTables, key: string): MoveRecord | undefined {
    const id = entity.moveIdempotencyKeys.get(key)
    return id === undefined ? undefined : entity.moves.get(id)
  }

  /** Refuses (400) a move whose settlement would take either subaccount's total out of range. */
  assertCanSettle(entity: SubaccountTables, move: Pick<MoveRecord, 'from_subaccount_id' | 'to_subaccount_id' | 'amount_in_minor_units'>): void {
    const amount = move.amount_in_minor_units
    this.subaccounts.assertCanBook(entity, [
      {subaccount_id: move.from_subaccount_id, direction: 'debit', amount_in_minor_units: amount},
      {subaccount_id: move.to_subaccount_id, direction: 'credit', amount_in_minor_units: amount},
    ])
  }

  /**
   * Records a status change at `atMs` (default: now). Approval checks first that the move can
   * settle, so a refused approve leaves it `created`.
   */
  setStatus(move: MoveRecord, status: MoveStatus, atMs?: number): void {
    const entity = this.ownerOf(move)
    if (status === 'approved' && entity) this.assertCanSettle(entity, move)
    move.status = status
    move.status_ms = atMs ?? this.core.nowMs()
    if (entity) this.core.changedRecord(entity.moves, move)
  }

  /** The entity whose moves hold `move`. */
  private ownerOf(move: MoveRecord): MoveOwner | undefined {
    for (const e of this.entities()) if (e.moves.get(move.id) === move) return e
    return undefined
  }

  /** Settles an approved move: debit on the source, credit on the destination, status `settled`. */
  settle(entity: MoveOwner, move: MoveRecord): void {
    if (move.status !== 'approved') throw new Error(`move ${move.id} is ${move.status}, not approved`)
    this.assertCanSettle(entity, move)
    const at = this.core.nowMs()
    move.settled_ms = at
    this.subaccounts.bookMove(entity, move)
    this.setStatus(move, 'settled', at)
  }
}
