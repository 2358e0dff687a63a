/**
 * The ledger oracle: what the emulator itself holds for the seeded test entity (subaccount totals,
 * moves, account transfers, bank-reported lines), read from its store in this process, and the
 * difference between two readings. The model-based test compares every claim a command makes
 * (its outcome line, its summary, its sentence, its exit code, the audit trail) with this.
 */
import type {Emulator} from '../support/index.js'

export interface LedgerMove {
  id: string
  from: string
  to: string
  amount: number
  status: string
  key: string | null
  metadata: Record<string, string>
}

export interface LedgerTransfer {
  id: string
  from: string
  to: string
  amount: number
  currency: string
  status: string
  key: string | null
  metadata: Record<string, unknown> | null
}

export interface LedgerBankLine {
  id: string
  account: string
  amount: number
  direction: string | null
  /** The sandbox reference (Idempotency-Key) of a simulated credit. */
  reference: string | null
  /** A simulated credit's line (with a sandbox reference, or, against --strict which keeps none, its simulated description). */
  simulated: boolean
  subaccount: string | null
  transfer: string | null
}

export interface Ledger {
  totals: Map<string, {incoming: number; outgoing: number}>
  moves: Map<string, LedgerMove>
  transfers: Map<string, LedgerTransfer>
  bank: Map<string, LedgerBankLine>
}

/** The test entity's ledger, as the emulator holds it now (copied: later changes do not show). */
export function readLedger(emu: Emulator): Ledger {
  const store = emu.store
  if (!store) throw new Error('the ledger oracle needs the in-process emulator (its store)')
  const e = store.entityByRole('test')
  if (!e) throw new Error('the emulator has no test entity')
  const totals = new Map<string, {incoming: number; outgoing: number}>()
  for (const s of e.subaccounts.items) totals.set(s.id, {incoming: s.total_incoming_in_minor_units, outgoing: s.total_outgoing_in_minor_units})
  const moves = new Map<string, LedgerMove>()
  for (const m of e.moves.items) {
    moves.set(m.id, {
      id: m.id,
      from: m.from_subaccount_id,
      to: m.to_subaccount_id,
      amount: m.amount_in_minor_units,
      status: m.status,
      key: m.idempotency_key,
      metadata: {...(m.client_metadata ?? {})},
    })
  }
  const transfers = new Map<string, LedgerTransfer>()
  for (const t of e.accountTransfers.items) {
    transfers.set(t.id, {
      id: t.id,
      from: t.from_account_id,
      to: t.to_account_id,
      amount: t.amount_in_minor_units,
      currency: t.currency_code,
      status: t.status,
      key: t.idempotency_key,
      metadata: t.client_metadata ? {...t.client_metadata} : null,
    })
  }
  const bank = new Map<string, LedgerBankLine>()
  for (const account of e.bankTransactions.keys()) {
    for (const l of e.bankTransactions.get(account)?.items ?? []) {
      bank.set(l.id, {
        id: l.id,
        account,
        amount: l.amount_in_minor_units,
        direction: l.direction ?? null,
        reference: l.sandbox_reference ?? null,
        simulated: l.sandbox_reference != null || /\(SIMULATED\)$/.test(l.description ?? ''),
        subaccount: l.subaccount_id ?? null,
        transfer: l.transfer_id ?? null,
      })
    }
  }
  return {totals, moves, transfers, bank}
}

export interface LedgerChange {
  /** Money that moved between subaccounts: the sum of the outgoing totals' growth. */
  moved: number
  /** Money booked into subaccounts from outside (simulated credits): incoming growth less `moved`. */
  creditedToSubaccounts: number
  /** Simulated credits that appeared. */
  credits: LedgerBankLine[]
  newMoves: LedgerMove[]
  /** Moves whose status changed: [before, after]. */
  changedMoves: Array<[LedgerMove, LedgerMove]>
  newTransfers: LedgerTransfer[]
  changedTransfers: Array<[LedgerTransfer, LedgerTransfer]>
  newBankLines: LedgerBankLine[]
}

export function diffLedger(before: Ledger, after: Ledger): LedgerChange {
  let outgoing = 0
  let incoming = 0
  for (const [id, t] of after.totals) {
    const b = before.totals.get(id) ?? {incoming: 0, outgoing: 0}
    outgoing += t.outgoing - b.outgoing
    incoming += t.incoming - b.incoming
  }
  const newMoves = [...after.moves.values()].filter((m) => !before.moves.has(m.id))
  const changedMoves = [...after.moves.values()].flatMap((m): Array<[LedgerMove, LedgerMove]> => {
    const b = before.moves.get(m.id)
    return b && b.status !== m.status ? [[b, m]] : []
  })
  const newTransfers = [...after.transfers.values()].filter((t) => !before.transfers.has(t.id))
  const changedTransfers = [...after.transfers.values()].flatMap((t): Array<[LedgerTransfer, LedgerTransfer]> => {
    const b = before.transfers.get(t.id)
    return b && b.status !== t.status ? [[b, t]] : []
  })
  const newBankLines = [...after.bank.values()].filter((l) => !before.bank.has(l.id))
  return {
    moved: outgoing,
    creditedToSubaccounts: incoming - outgoing,
    credits: newBankLines.filter((l) => l.simulated),
    newMoves,
    changedMoves,
    newTransfers,
    changedTransfers,
    newBankLines,
  }
}

/** Whether anything at all changed in the ledger. */
export function anyChange(c: LedgerChange): boolean {
  return c.moved !== 0 || c.creditedToSubaccounts !== 0 || c.newMoves.length > 0 || c.changedMoves.length > 0 || c.newTransfers.length > 0 || c.changedTransfers.length > 0 || c.newBankLines.length > 0
}

/** One line about a change, for a failure message. */
export function describeChange(c: LedgerChange): string {
  const parts: string[] = [`moved ${c.moved}`]
  if (c.creditedToSubaccounts) parts.push(`credited to subaccounts ${c.creditedToSubaccounts}`)
  if (c.newMoves.length) parts.push(`new moves [${c.newMoves.map((m) => `${m.id.slice(0, 8)} ${m.amount} ${m.status}${Object.keys(m.metadata).length ? ` ${JSON.stringify(m.metadata)}` : ''}`).join(', ')}]`)
  if (c.changedMoves.length) parts.push(`moves changed [${c.changedMoves.map(([b, a]) => `${a.id.slice(0, 8)} ${a.amount} ${b.status}->${a.status}`).join(', ')}]`)
  if (c.newTransfers.length) parts.push(`new transfers [${c.newTransfers.map((t) => `${t.id.slice(0, 8)} ${t.amount} ${t.status}`).join(', ')}]`)
  if (c.changedTransfers.length) parts.push(`transfers changed [${c.changedTransfers.map(([b, a]) => `${a.id.slice(0, 8)} ${b.status}->${a.status}`).join(', ')}]`)
  if (c.credits.length) parts.push(`simulated credits [${c.credits.map((l) => l.amount).join(', ')}]`)
  return parts.join('; ')
}
