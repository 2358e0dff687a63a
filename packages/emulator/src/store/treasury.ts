/**
 * Treasury accounts (seeded, never created through the API; only the label changes) and their
 * bank-reported transactions, including simulated inbound credits and the sandbox references
 * they were made with.
 */
import {randomInt} from 'node:crypto'
import {newId, type Grouped, type Row, type StoreCore, type Table} from './core.js'
import type {Direction, SubaccountTables, SubaccountsStore} from './subaccounts.js'

export interface TreasuryAccountRecord extends Row {
  label: string
  currency_code: string
  last_four_digits: string | null
  /** A sandbox account that accepts simulated inbound credits. */
  simulated: boolean
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

/** What an entity keeps for this area. */
export interface TreasuryTables {
  readonly id: string
  readonly treasuryAccounts: Table<TreasuryAccountRecord>
  /** Bank-reported lines per treasury account id. */
  readonly bankTransactions: Grouped<BankTransactionRecord>
  /** Sandbox reference (Idempotency-Key of a simulated credit) -> `account_id/bank_transaction_id`. */
  readonly creditReferences: Map<string, string>
}

/** What {@link TreasuryTables.creditReferences} maps a simulated credit's sandbox reference to. */
export function creditReference(line: Pick<BankTransactionRecord, 'account_id' | 'id'>): string {
  return `${line.account_id}/${line.id}`
}

/** The main operating account: the first USD account, else the first account. */
export function mainAccount(entity: Pick<TreasuryTables, 'treasuryAccounts'>): TreasuryAccountRecord | undefined {
  return entity.treasuryAccounts.items.find((a) => a.currency_code === 'USD') ?? entity.treasuryAccounts.items[0]
}

export class TreasuryStore {
  constructor(
    private readonly core: StoreCore,
    private readonly subaccounts: SubaccountsStore,
  ) {}

  createAccount(entity: TreasuryTables, init: {label: string; currency_code: string; simulated: boolean}): TreasuryAccountRecord {
    const now = this.core.now()
    const rec: TreasuryAccountRecord = {
      id: newId(),
      seq: this.core.nextSeq(),
      label: init.label,
      currency_code: init.currency_code,
      last_four_digits: String(randomInt(0, 10_000)).padStart(4, '0'),
      simulated: init.simulated,
      created_at: now,
      updated_at: now,
    }
    entity.treasuryAccounts.insert(rec)
    this.core.changedRecord(entity.treasuryAccounts, rec)
    return rec
  }

  updateLabel(entity: TreasuryTables, account: TreasuryAccountRecord, label: string): void {
    account.label = label
    account.updated_at = this.core.now()
    this.core.changedRecord(entity.treasuryAccounts, account)
  }

  addBankTransaction(entity: TreasuryTables & SubaccountTables, accountId: string, input: NewBankTransaction): BankTransactionRecord {
    if (!entity.treasuryAccounts.has(accountId)) throw new Error(`treasury account ${accountId} does not exist in entity ${entity.id}`)
    // A credit for a subaccount is booked to it right after: refuse it here, before either write.
    if (input.subaccount_id !== undefined && entity.subaccounts.has(input.subaccount_id)) {
      this.subaccounts.assertCanBook(entity, [{subaccount_id: input.subaccount_id, direction: input.direction ?? 'credit', amount_in_minor_units: input.amount_in_minor_units}])
    }
    const rec: BankTransactionRecord = {id: newId(), seq: this.core.nextSeq(), account_id: accountId, created_at: this.core.now(), ...input}
    const loose = rec as unknown as Record<string, unknown>
    for (const k of Object.keys(loose)) if (loose[k] === undefined || loose[k] === null) delete loose[k]
    const table = entity.bankTransactions.table(accountId)
    table.insert(rec)
    if (rec.sandbox_reference !== undefined) entity.creditReferences.set(rec.sandbox_reference, creditReference(rec))
    this.core.changedRecord(table, rec)
    return rec
  }

  /** The simulated credit a sandbox reference was used for, if any. */
  creditByReference(entity: TreasuryTables, reference: string): BankTransactionRecord | undefined {
    const where = entity.creditReferences.get(reference)
    if (where === undefined) return undefined
    const [accountId, id] = where.split('/')
    return entity.bankTransactions.get(accountId)?.get(id)
  }
}
