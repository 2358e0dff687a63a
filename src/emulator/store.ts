/**
 * The emulator's state: entities (each owning its API keys' resources), their tables of records,
 * and the operations that change them. Everything here is plain JSON-serialisable data so that
 * `--state FILE` can persist it; wire shapes (views) are built by the route modules.
 *
 * Ordering: every record gets a store-wide, strictly increasing `seq`, and `created_at` comes from
 * a clock that never goes backwards, so ordering by seq is ordering by (created_at, seq).
 */
import {randomBytes, randomInt, randomUUID} from 'node:crypto'
import {validationError} from './http.js'

export type Mode = 'test' | 'live'
export const ENTITY_ROLES = ['test', 'test_other', 'live'] as const
export type EntityRole = (typeof ENTITY_ROLES)[number]

/** A record kept in a {@link Table}: unique id plus the store-wide sequence number. */
export interface Row {
  id: string
  seq: number
}

/**
 * Records of one kind, by id and as an array sorted by seq (append-only in practice), so that
 * cursor pagination can binary-search its position instead of scanning.
 */
export class Table<T extends Row> {
  readonly items: T[] = []
  private readonly byId = new Map<string, T>()

  get size(): number {
    return this.items.length
  }

  get(id: string): T | undefined {
    return this.byId.get(id)
  }

  has(id: string): boolean {
    return this.byId.has(id)
  }

  insert(row: T): T {
    if (this.byId.has(row.id)) throw new Error(`duplicate id ${row.id}`)
    const last = this.items[this.items.length - 1]
    if (!last || last.seq < row.seq) this.items.push(row)
    else this.items.splice(lowerBound(this.items, row.seq), 0, row)
    this.byId.set(row.id, row)
    return row
  }

  delete(id: string): boolean {
    const row = this.byId.get(id)
    if (!row) return false
    this.byId.delete(id)
    const i = lowerBound(this.items, row.seq)
    if (this.items[i] === row) this.items.splice(i, 1)
    return true
  }

  clear(): void {
    this.items.length = 0
    this.byId.clear()
  }

  load(rows: readonly T[]): void {
    this.clear()
    for (const r of [...rows].sort((a, b) => a.seq - b.seq)) this.insert(r)
  }

  toJSON(): T[] {
    return this.items
  }
}

/** Tables keyed by a parent id (activity per subaccount, bank lines per treasury account). */
export class Grouped<T extends Row> {
  private readonly groups = new Map<string, Table<T>>()

  get(key: string): Table<T> | undefined {
    return this.groups.get(key)
  }

  /** The table of `key`, created when missing. */
  table(key: string): Table<T> {
    let t = this.groups.get(key)
    if (!t) {
      t = new Table<T>()
      this.groups.set(key, t)
    }
    return t
  }

  keys(): IterableIterator<string> {
    return this.groups.keys()
  }

  clear(): void {
    this.groups.clear()
  }

  load(obj: Record<string, readonly T[]>): void {
    this.clear()
    for (const [k, rows] of Object.entries(obj)) this.table(k).load(rows)
  }

  toJSON(): Record<string, T[]> {
    const out: Record<string, T[]> = {}
    for (const [k, t] of this.groups) out[k] = t.items
    return out
  }
}

/** Index of the first item whose seq is >= `seq` (items sorted by seq). */
export function lowerBound(items: readonly Row[], seq: number): number {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (items[mid].seq < seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Index of the first item whose seq is > `seq` (items sorted by seq). */
export function upperBound(items: readonly Row[], seq: number): number {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (items[mid].seq <= seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

export interface SubaccountRecord extends Row {
  name: string
  account_number: string
  routing_numbers: {ach: string; wire: string}
  total_incoming_in_minor_units: number
  total_outgoing_in_minor_units: number
  currency_code: string
  created_at: string
  updated_at: string
}

export const MOVE_STATUSES = ['created', 'approved', 'settled', 'canceled', 'failed'] as const
export type MoveStatus = (typeof MOVE_STATUSES)[number]

export interface MoveRecord extends Row {
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

export type ActivitySource = 'transfer' | 'bai2'
export type Direction = 'credit' | 'debit'

export interface ActivityRecord extends Row {
  subaccount_id: string
  source: ActivitySource
  direction: Direction
  amount_in_minor_units: number
  currency_code: string
  effective_at: string
  created_at: string
  /** The move or bank transaction this line comes from. */
  reference_id: string | null
}

export interface TreasuryAccountRecord extends Row {
  label: string
  currency_code: string
  last_four_digits: string | null
  /** A sandbox account that accepts simulated inbound credits. */
  simulated: boolean
  created_at: string
  updated_at: string
}

/** A payer's or payee's default payment method (an internal record: the spec shows no shape). */
export interface PaymentMethodRecord {
  account_last_four: string
  routing_number: string
}

export type PartyKind = 'payer' | 'payee'

/** A payer or payee (same field set); `default_payment_method` backs the `has_default` filter. */
export interface PartyRecord extends Row {
  name: string
  email: string
  country_code: 'US' | 'GB' | 'IN' | null
  country_sub_division: string | null
  city: string | null
  address_line: string | null
  postal_code: string | null
  client_metadata: Record<string, string>
  default_payment_method: PaymentMethodRecord | null
  created_at: string
  updated_at: string
}

export type PayinStatusValue = 'created' | 'approved' | 'initiated' | 'debited' | 'settled' | 'failed' | 'canceled'

export interface PayinRecord extends Row {
  payer_id: string
  amount_in_minor_units: number
  currency_code: string
  rail: string
  status: PayinStatusValue
  status_recorded_at: string
  /** The payer's payment method at creation; `end_to_end_id` is set once initiated. */
  payment_method: {account_last_four: string; routing_number: string; end_to_end_id: string | null}
  /** The payer's name and email at creation. */
  payer: {name: string; email: string}
  client_metadata: Record<string, unknown>
  scheduled_date: string | null
  created_at: string
  updated_at: string
}

/** A bank-reported line of a treasury account. Unknown fields are absent, never null. */
export interface BankTransactionRecord extends Row {
  account_id: string
  amount_in_minor_units: number
  currency_code: string
  description: string
  sender_info?: string
  receiver_info?: string
  direction?: Direction
  transaction_date?: string
  created_at: string
  /** The subaccount a simulated credit was booked to. */
  subaccount_id?: string
  /** The Idempotency-Key (sandbox reference) of a simulated credit, and its request's fingerprint. */
  sandbox_reference?: string
  request_fingerprint?: string
  /** The account transfer this line comes from. */
  transfer_id?: string
}

export type NewBankTransaction = Omit<BankTransactionRecord, 'id' | 'seq' | 'account_id' | 'created_at'>

export const TRANSFER_STATUSES = ['created', 'approved', 'initiated', 'debited', 'settled', 'failed', 'canceled'] as const
export type TransferStatus = (typeof TRANSFER_STATUSES)[number]

export interface AccountTransferRecord extends Row {
  from_account_id: string
  to_account_id: string
  amount_in_minor_units: number
  currency_code: string
  rail: string
  status: TransferStatus
  status_recorded_at: string
  client_metadata: Record<string, unknown> | null
  scheduled_date: string | null
  idempotency_key: string | null
  created_at: string
  updated_at: string
}

export type NewParty = Omit<PartyRecord, 'id' | 'seq' | 'created_at' | 'updated_at'> & {id?: string; created_at?: string}

export type NewPayin = Omit<PayinRecord, 'id' | 'seq' | 'status' | 'status_recorded_at' | 'created_at' | 'updated_at'> & {
  id?: string
  status?: PayinStatusValue
  created_at?: string
}

export interface NewAccountTransfer {
  from_account_id: string
  to_account_id: string
  amount_in_minor_units: number
  currency_code: string
  rail: string
  client_metadata?: Record<string, unknown> | null
  scheduled_date?: string | null
  idempotency_key?: string | null
}

export interface WebhookRecord extends Row {
  url: string
  description: string | null
  is_active: boolean
  /** Sorted allowlist. */
  event_types: string[]
  /** The signing secret (`whsec_…`); returned by the API only at creation. */
  secret: string
  created_at: string
  updated_at: string
}

export interface ApiKeyRecord {
  key: string
  entity_id: string
  read_only: boolean
  created_at: string
}

/**
 * One service entity and everything it owns. Serialisation is generic over the fields: every
 * {@link Table}, {@link Grouped} and `Map<string, string>` field is saved and restored by name, so a
 * new resource area adds one field here and nothing else.
 */
export class Entity {
  readonly id: string
  readonly role: EntityRole
  readonly name: string
  readonly mode: Mode
  /** The ABA routing number of the emulated bank that holds this entity's accounts. */
  readonly routing_number: string
  readonly created_at: string

  readonly treasuryAccounts = new Table<TreasuryAccountRecord>()
  readonly subaccounts = new Table<SubaccountRecord>()
  readonly moves = new Table<MoveRecord>()
  /** Activity lines per subaccount id. */
  readonly activity = new Grouped<ActivityRecord>()
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
    return this.treasuryAccounts.items.find((a) => a.currency_code === 'USD') ?? this.treasuryAccounts.items[0]
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
      if (field instanceof Table) field.load(v as Row[])
      else if (field instanceof Grouped) field.load(v as Record<string, Row[]>)
      else if (field instanceof Map) for (const [mk, mv] of Object.entries(v as Record<string, unknown>)) field.set(mk, mv)
    }
    return e
  }
}

export interface EmulatorKeys {
  test: string
  test_other: string
  live: string
}

export interface NewMove {
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency_code: string
  client_metadata?: Record<string, string>
  idempotency_key?: string | null
}

export interface NewActivity {
  source: ActivitySource
  direction: Direction
  amount_in_minor_units: number
  currency_code?: string
  /** Defaults to now. */
  effective_at?: string
  reference_id?: string | null
}

const STATE_VERSION = 1

/**
 * Whether `amount` can be added to `total` and the sum stay an exact integer (at most
 * Number.MAX_SAFE_INTEGER): past it JSON numbers lose precision and clients cannot read them.
 */
export function canAdd(total: number, amount: number): boolean {
  return Number.isSafeInteger(total) && Number.isSafeInteger(amount) && Number.isSafeInteger(total + amount)
}

type Booking = {subaccount_id: string; direction: Direction; amount_in_minor_units: number}

export class Store {
  readonly entities = new Map<string, Entity>()
  readonly apiKeys = new Map<string, ApiKeyRecord>()
  /** The first full-access key issued to each seeded entity: what `emulator start` prints. */
  readonly primaryKeys: Partial<Record<EntityRole, string>> = {}
  private readonly accountNumbers = new Set<string>()
  private seq = 0
  private clock = 0
  private readonly listeners = new Set<() => void>()

  /** A fresh, strictly increasing sequence number. */
  nextSeq(): number {
    return ++this.seq
  }

  /** Current time as ISO 8601, never earlier than a time this store already handed out. */
  now(): string {
    const t = Date.now()
    if (t > this.clock) this.clock = t
    return new Date(this.clock).toISOString()
  }

  /** Call after every mutation: persistence listens to it. */
  changed(): void {
    for (const fn of this.listeners) fn()
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  // ---- entities and keys ----

  addEntity(init: {role: EntityRole; name: string; mode: Mode; id?: string}): Entity {
    const e = new Entity({
      id: init.id ?? randomUUID(),
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
    this.accountNumbers.clear()
    this.changed()
  }

  // ---- treasury accounts ----

  createTreasuryAccount(entity: Entity, init: {label: string; currency_code: string; simulated: boolean}): TreasuryAccountRecord {
    const now = this.now()
    const rec: TreasuryAccountRecord = {
      id: randomUUID(),
      seq: this.nextSeq(),
      label: init.label,
      currency_code: init.currency_code,
      last_four_digits: String(randomInt(0, 10_000)).padStart(4, '0'),
      simulated: init.simulated,
      created_at: now,
      updated_at: now,
    }
    entity.treasuryAccounts.insert(rec)
    this.changed()
    return rec
  }

  updateTreasuryAccountLabel(account: TreasuryAccountRecord, label: string): void {
    account.label = label
    account.updated_at = this.now()
    this.changed()
  }

  // ---- bank-reported transactions ----

  addBankTransaction(entity: Entity, accountId: string, input: NewBankTransaction): BankTransactionRecord {
    if (!entity.treasuryAccounts.has(accountId)) throw new Error(`treasury account ${accountId} does not exist in entity ${entity.id}`)
    // A credit for a subaccount is booked to it right after: refuse it here, before either write.
    if (input.subaccount_id !== undefined && entity.subaccounts.has(input.subaccount_id)) {
      this.assertCanBook(entity, [{subaccount_id: input.subaccount_id, direction: input.direction ?? 'credit', amount_in_minor_units: input.amount_in_minor_units}])
    }
    const rec: BankTransactionRecord = {id: randomUUID(), seq: this.nextSeq(), account_id: accountId, created_at: this.now(), ...input}
    const loose = rec as unknown as Record<string, unknown>
    for (const k of Object.keys(loose)) if (loose[k] === undefined || loose[k] === null) delete loose[k]
    entity.bankTransactions.table(accountId).insert(rec)
    if (rec.sandbox_reference !== undefined) entity.creditReferences.set(rec.sandbox_reference, `${accountId}/${rec.id}`)
    this.changed()
    return rec
  }

  /** The simulated credit a sandbox reference was used for, if any. */
  creditByReference(entity: Entity, reference: string): BankTransactionRecord | undefined {
    const where = entity.creditReferences.get(reference)
    if (where === undefined) return undefined
    const [accountId, id] = where.split('/')
    return entity.bankTransactions.get(accountId)?.get(id)
  }

  // ---- account transfers ----

  /** Creates an account transfer in `created` and binds its Idempotency-Key (if any) to it. */
  createAccountTransfer(entity: Entity, input: NewAccountTransfer): AccountTransferRecord {
    const now = this.now()
    const rec: AccountTransferRecord = {
      id: randomUUID(),
      seq: this.nextSeq(),
      from_account_id: input.from_account_id,
      to_account_id: input.to_account_id,
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: input.currency_code,
      rail: input.rail,
      status: 'created',
      status_recorded_at: now,
      client_metadata: input.client_metadata ?? null,
      scheduled_date: input.scheduled_date ?? null,
      idempotency_key: input.idempotency_key ?? null,
      created_at: now,
      updated_at: now,
    }
    entity.accountTransfers.insert(rec)
    if (rec.idempotency_key !== null) entity.transferIdempotencyKeys.set(rec.idempotency_key, rec.id)
    this.changed()
    return rec
  }

  transferByIdempotencyKey(entity: Entity, key: string): AccountTransferRecord | undefined {
    const id = entity.transferIdempotencyKeys.get(key)
    return id === undefined ? undefined : entity.accountTransfers.get(id)
  }

  setTransferStatus(transfer: AccountTransferRecord, status: TransferStatus): void {
    this.setStatus(transfer, status)
  }

  // ---- subaccounts ----

  createSubaccount(entity: Entity, init: {name: string; currency_code: string}): SubaccountRecord {
    const now = this.now()
    const rec: SubaccountRecord = {
      id: randomUUID(),
      seq: this.nextSeq(),
      name: init.name,
      account_number: this.newAccountNumber(),
      routing_numbers: {ach: entity.routing_number, wire: entity.routing_number},
      total_incoming_in_minor_units: 0,
      total_outgoing_in_minor_units: 0,
      currency_code: init.currency_code,
      created_at: now,
      updated_at: now,
    }
    entity.subaccounts.insert(rec)
    this.changed()
    return rec
  }

  /** Appends an activity line to a subaccount without touching its totals. */
  addActivity(entity: Entity, subaccountId: string, input: NewActivity): ActivityRecord {
    const sub = entity.subaccounts.get(subaccountId)
    if (!sub) throw new Error(`subaccount ${subaccountId} does not exist in entity ${entity.id}`)
    const now = this.now()
    const rec: ActivityRecord = {
      id: randomUUID(),
      seq: this.nextSeq(),
      subaccount_id: subaccountId,
      source: input.source,
      direction: input.direction,
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: input.currency_code ?? sub.currency_code,
      effective_at: input.effective_at ?? now,
      created_at: now,
      reference_id: input.reference_id ?? null,
    }
    entity.activity.table(subaccountId).insert(rec)
    this.changed()
    return rec
  }

  /**
   * The one range check on subaccount totals: throws 400 VALIDATION_ERROR, before anything is
   * written, when a booking would take an incoming or outgoing total past Number.MAX_SAFE_INTEGER.
   */
  assertCanBook(entity: Entity, bookings: Booking[]): void {
    for (const b of bookings) {
      const sub = entity.subaccounts.get(b.subaccount_id)
      if (!sub) continue
      const which = b.direction === 'credit' ? 'incoming' : 'outgoing'
      const total = b.direction === 'credit' ? sub.total_incoming_in_minor_units : sub.total_outgoing_in_minor_units
      if (!canAdd(total, b.amount_in_minor_units)) {
        throw validationError(
          `amount_in_minor_units ${b.amount_in_minor_units} would take the total ${which} of subaccount ${sub.id} past ${Number.MAX_SAFE_INTEGER}, the largest exact amount`,
        )
      }
    }
  }

  /** Refuses (400) a move whose settlement would take either subaccount's total out of range. */
  assertCanSettle(entity: Entity, move: Pick<MoveRecord, 'from_subaccount_id' | 'to_subaccount_id' | 'amount_in_minor_units'>): void {
    const amount = move.amount_in_minor_units
    this.assertCanBook(entity, [
      {subaccount_id: move.from_subaccount_id, direction: 'debit', amount_in_minor_units: amount},
      {subaccount_id: move.to_subaccount_id, direction: 'credit', amount_in_minor_units: amount},
    ])
  }

  /**
   * Books money into or out of a subaccount: updates the incoming/outgoing total and appends the
   * matching activity line. Balances may go negative (no minimum is enforced).
   */
  bookSubaccountFlow(entity: Entity, subaccountId: string, input: NewActivity): ActivityRecord {
    const sub = entity.subaccounts.get(subaccountId)
    if (!sub) throw new Error(`subaccount ${subaccountId} does not exist in entity ${entity.id}`)
    this.assertCanBook(entity, [{subaccount_id: subaccountId, direction: input.direction, amount_in_minor_units: input.amount_in_minor_units}])
    const line = this.addActivity(entity, subaccountId, input)
    if (input.direction === 'credit') sub.total_incoming_in_minor_units += input.amount_in_minor_units
    else sub.total_outgoing_in_minor_units += input.amount_in_minor_units
    sub.updated_at = line.created_at
    this.changed()
    return line
  }

  // ---- moves ----

  /**
   * Creates a move in `created` and binds its Idempotency-Key (if any) to it. A move that could not
   * settle now (a total would leave the exact range) is refused here, so an auto-approving create
   * fails before the move exists.
   */
  createMove(entity: Entity, input: NewMove): MoveRecord {
    this.assertCanSettle(entity, input)
    const now = this.now()
    const rec: MoveRecord = {
      id: randomUUID(),
      seq: this.nextSeq(),
      from_subaccount_id: input.from_subaccount_id,
      to_subaccount_id: input.to_subaccount_id,
      amount_in_minor_units: input.amount_in_minor_units,
      currency_code: input.currency_code,
      status: 'created',
      status_recorded_at: now,
      client_metadata: input.client_metadata ?? {},
      idempotency_key: input.idempotency_key ?? null,
      settled_at: null,
      created_at: now,
      updated_at: now,
    }
    entity.moves.insert(rec)
    if (rec.idempotency_key !== null) entity.moveIdempotencyKeys.set(rec.idempotency_key, rec.id)
    this.changed()
    return rec
  }

  /** The move an Idempotency-Key was used for, if any. */
  moveByIdempotencyKey(entity: Entity, key: string): MoveRecord | undefined {
    const id = entity.moveIdempotencyKeys.get(key)
    return id === undefined ? undefined : entity.moves.get(id)
  }

  /** Approval checks first that the move can settle, so a refused approve leaves it `created`. */
  setMoveStatus(move: MoveRecord, status: MoveStatus): void {
    if (status === 'approved') {
      const entity = [...this.entities.values()].find((e) => e.moves.get(move.id) === move)
      if (entity) this.assertCanSettle(entity, move)
    }
    this.setStatus(move, status)
  }

  /** Sets a record's status and stamps when it changed (moves, transfers, payins). */
  setStatus<T extends {status: string; status_recorded_at: string; updated_at: string}>(rec: T, status: T['status']): void {
    const now = this.now()
    rec.status = status
    rec.status_recorded_at = now
    rec.updated_at = now
    this.changed()
  }

  /** Settles an approved move: debit on the source, credit on the destination, status `settled`. */
  settleMove(entity: Entity, move: MoveRecord): void {
    if (move.status !== 'approved') throw new Error(`move ${move.id} is ${move.status}, not approved`)
    this.assertCanSettle(entity, move)
    const at = this.now()
    const common = {source: 'transfer' as const, amount_in_minor_units: move.amount_in_minor_units, currency_code: move.currency_code, effective_at: at, reference_id: move.id}
    this.bookSubaccountFlow(entity, move.from_subaccount_id, {...common, direction: 'debit'})
    this.bookSubaccountFlow(entity, move.to_subaccount_id, {...common, direction: 'credit'})
    move.settled_at = at
    this.setMoveStatus(move, 'settled')
  }

  // ---- payers, payees, payins, session tokens ----

  /**
   * Adds a payer or payee. `created_at` may be given (seeding) only in increasing order, so that
   * the table's seq order stays its created_at order.
   */
  createParty(entity: Entity, kind: PartyKind, input: NewParty): PartyRecord {
    const at = input.created_at ?? this.now()
    const {id, created_at: _c, ...fields} = input
    const rec: PartyRecord = {...fields, id: id ?? randomUUID(), seq: this.nextSeq(), created_at: at, updated_at: at}
    ;(kind === 'payer' ? entity.payers : entity.payees).insert(rec)
    this.changed()
    return rec
  }

  createPayin(entity: Entity, input: NewPayin): PayinRecord {
    const at = input.created_at ?? this.now()
    const {id, created_at: _c, status, ...fields} = input
    const rec: PayinRecord = {...fields, id: id ?? randomUUID(), seq: this.nextSeq(), status: status ?? 'created', status_recorded_at: at, created_at: at, updated_at: at}
    entity.payins.insert(rec)
    this.changed()
    return rec
  }

  setPayinStatus(payin: PayinRecord, status: PayinStatusValue): void {
    this.setStatus(payin, status)
  }

  private jwtSecret?: string

  /** The HS256 key that signs session tokens: random per emulator, kept in the state file. */
  sessionSigningSecret(): string {
    if (!this.jwtSecret) {
      this.jwtSecret = randomBytes(32).toString('hex')
      this.changed()
    }
    return this.jwtSecret
  }

  // ---- webhooks ----

  createWebhook(entity: Entity, init: {url: string; description: string | null; event_types: string[]; secret: string}): WebhookRecord {
    const now = this.now()
    const rec: WebhookRecord = {
      id: randomUUID(),
      seq: this.nextSeq(),
      url: init.url,
      description: init.description,
      is_active: true,
      event_types: [...init.event_types].sort(),
      secret: init.secret,
      created_at: now,
      updated_at: now,
    }
    entity.webhooks.insert(rec)
    this.changed()
    return rec
  }

  /** Changes only the given fields; `event_types` replaces the allowlist. */
  updateWebhook(hook: WebhookRecord, patch: {url?: string; description?: string | null; event_types?: string[]; is_active?: boolean}): WebhookRecord {
    if (patch.url !== undefined) hook.url = patch.url
    if (patch.description !== undefined) hook.description = patch.description
    if (patch.event_types !== undefined) hook.event_types = [...patch.event_types].sort()
    if (patch.is_active !== undefined) hook.is_active = patch.is_active
    hook.updated_at = this.now()
    this.changed()
    return hook
  }

  deleteWebhook(entity: Entity, id: string): boolean {
    const gone = entity.webhooks.delete(id)
    if (gone) this.changed()
    return gone
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
      session_signing_secret: this.jwtSecret,
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
      for (const sub of e.subaccounts.items) s.accountNumbers.add(sub.account_number)
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
        else if (field instanceof Grouped) for (const key of field.keys()) maxSeq = Math.max(maxSeq, field.get(key)?.items.at(-1)?.seq ?? 0)
      }
    }
    s.seq = maxSeq
    s.clock = typeof j.clock === 'number' ? j.clock : 0
    if (typeof j.session_signing_secret === 'string') s.jwtSecret = j.session_signing_secret
    return s
  }

  private newAccountNumber(): string {
    for (;;) {
      const n = String(randomInt(100_000_000_000, 1_000_000_000_000))
      if (!this.accountNumbers.has(n)) {
        this.accountNumbers.add(n)
        return n
      }
    }
  }
}

/** A random 9-digit ABA routing number with a valid Federal Reserve prefix and check digit. */
export function randomRoutingNumber(): string {
  const prefix = randomInt(0, 2) === 0 ? randomInt(1, 13) : randomInt(21, 33)
  const d = [...String(prefix).padStart(2, '0'), ...String(randomInt(0, 1_000_000)).padStart(6, '0')].map(Number)
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5])
  d.push((10 - (sum % 10)) % 10)
  return d.join('')
}

/** True for a 9-digit number whose ABA checksum holds. */
export function isValidRoutingNumber(n: string): boolean {
  if (!/^\d{9}$/.test(n)) return false
  const d = [...n].map(Number)
  return (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8])) % 10 === 0
}
