/**
 * `reconcile ACCOUNT --statement FILE…`: the bank lines come from the bank's own files instead of
 * the API, and are matched exactly as the API's are (same kinds, keys, decisions, exit 9).
 *
 * Every file is read and checked whole before anything is sent. Of the account the file reports
 * on, only the one whose number ends with the treasury account's `last_four_digits` is read, and
 * its currency must be the account's; anything else is refused (exit 2). A file is recognised by
 * the digest of its normalised content and by the statement's own identifiers: given twice in one
 * run (or a copy of it with other line endings) its lines count once; a line already given by an
 * earlier file (the same id: an intraday camt.052 line again in the day's camt.053) counts once.
 * Each file reconciled is kept in the books database, so a later run says when it was first
 * reconciled.
 */
import {statSync} from 'node:fs'
import {favourMemory} from '../../memory.js'
import type {CommandContext} from '../../context/index.js'
import {UsageError} from '../../errors.js'
import {readFileArg} from '../../files.js'
import {oneLine, replaceUnsafeChars} from '../../text.js'
import type {TreasuryAccount} from '../../api/schemas/treasury.js'
import {reconcile, type ReconcileOptions, type ReconcileReport} from '../reconcile.js'
import {BooksStore} from '../store.js'
import {FORMAT_NAMES} from './formats.js'
import {readBankFile, type ReadBankFile} from './index.js'
import {MAX_BANK_FILE_BYTES, accountDigits, type BankFileAccount, type BankFileLine} from './types.js'

export interface BankFileUsed {
  file: string
  format: string
  statement_id: string
  digest: string
  /** The account of the file read (its last four characters). */
  account: string | null
  lines: number
  from: string | null
  to: string | null
  opening_balance_in_minor_units: number | null
  closing_balance_in_minor_units: number | null
  /** False: the same file (or statement) as an earlier one of this run, not read again. */
  counted: boolean
  /** When a run on this machine first reconciled this file (null: this run). */
  first_reconciled_at: string | null
}

export type FileReconcileReport = ReconcileReport & {bank_files: BankFileUsed[]}

const shown = (s: string) => oneLine(replaceUnsafeChars(s), 120)
const lastFour = (n: string) => `…${accountDigits(n).slice(-4)}`

/** Reads every file named, whole, before anything is sent. */
export function loadStatements(paths: string[]): ReadBankFile[] {
  // The command reads whole lists after the files: keep the heap near what is live from here on.
  if (paths.length > 0) favourMemory()
  const sizeOf = (p: string): number => {
    try {
      return statSync(p).size
    } catch {
      return -1 // reading it below names the file and why it cannot be read
    }
  }
  return paths.map((p) => {
    const size = sizeOf(p)
    if (size > MAX_BANK_FILE_BYTES) throw new UsageError(`--statement ${shown(p)} is ${size} bytes, more than the ${MAX_BANK_FILE_BYTES / 1024 / 1024} MiB a statement file may be.`)
    return readBankFile(readFileArg(p, '--statement'), p)
  })
}

/** The period the files cover, for a run given no --from and --to. */
export function filesPeriod(files: ReadBankFile[]): {from: string; to: string} | undefined {
  const days = files.flatMap((f) => f.accounts.flatMap((a) => [a.from, a.to])).filter((d): d is string => d !== null)
  if (days.length === 0) return undefined
  days.sort()
  return {from: days[0], to: days[days.length - 1]}
}

/** The account of a file that is the treasury account's, or a refusal saying why none is. */
function accountOf(f: ReadBankFile, name: string, account: TreasuryAccount): BankFileAccount {
  const four = account.last_four_digits ? accountDigits(account.last_four_digits) : ''
  if (!four) throw new UsageError(`Treasury account ${account.id} shows no last_four_digits, so ${name} cannot be tied to it: nothing was reconciled.`)
  const mine = f.accounts.filter((a) => accountDigits(a.number).endsWith(four))
  if (mine.length === 0) {
    throw new UsageError(`${name} is a statement of ${f.accounts.map((a) => `account ${lastFour(a.number)}`).join(', ') || 'no account'}, not of ${account.id} (its number ends ${four}): nothing was reconciled.`)
  }
  if (new Set(mine.map((a) => accountDigits(a.number))).size > 1) throw new UsageError(`${name} reports on more than one account ending ${four}: which is ${account.id} is not clear, nothing was reconciled.`)
  const a = mine[0]
  const currency = account.currency_code.toUpperCase()
  if (a.currency !== currency) throw new UsageError(`${name} is in ${a.currency}; ${account.id} is a ${currency} account: nothing was reconciled.`)
  return a
}

/** Which files are read: a file given twice in the run (by digest or statement id) is read once. */
function distinct(files: ReadBankFile[], names: string[]): boolean[] {
  const byDigest = new Map<string, number>()
  const byStatement = new Map<string, number>()
  return files.map((f, i) => {
    const sameStatement = byStatement.get(`${f.format}/${f.statement_id}`)
    if (byDigest.has(f.digest)) return false
    if (sameStatement !== undefined) {
      throw new UsageError(`${names[i]} and ${names[sameStatement]} are both statement ${shown(f.statement_id)} with other content: which one the bank means is not clear, nothing was reconciled.`)
    }
    byDigest.set(f.digest, i)
    byStatement.set(`${f.format}/${f.statement_id}`, i)
    return true
  })
}

export async function reconcileStatements(opts: Omit<ReconcileOptions, 'bankLines'>, files: ReadBankFile[], names: string[], ctx: CommandContext): Promise<FileReconcileReport> {
  const counted = distinct(files, names)
  const used: BankFileUsed[] = files.map((f, i) => ({
    file: names[i],
    format: f.format,
    statement_id: f.statement_id,
    digest: f.digest,
    account: null,
    lines: 0,
    from: null,
    to: null,
    opening_balance_in_minor_units: null,
    closing_balance_in_minor_units: null,
    counted: counted[i],
    first_reconciled_at: null,
  }))
  const bankLines = (account: TreasuryAccount, lo: string, hi: string): Iterable<BankFileLine> => {
    const chosen = files.map((f, i) => accountOf(f, names[i], account))
    chosen.forEach((a, i) => Object.assign(used[i], {account: lastFour(a.number), lines: a.lines, from: a.from, to: a.to, opening_balance_in_minor_units: a.opening_balance_in_minor_units, closing_balance_in_minor_units: a.closing_balance_in_minor_units}))
    return linesOf(files, chosen, counted, lo, hi)
  }
  const report = await reconcile({...opts, bankLines}, ctx)
  record(files, used, opts.account, ctx)
  return {...report, bank_files: used}
}

function* linesOf(files: ReadBankFile[], chosen: BankFileAccount[], counted: boolean[], lo: string, hi: string): Generator<BankFileLine> {
  // One file: its ids are its own. More: a line an earlier file gave (the same id) is not given again.
  const seen = files.length > 1 ? new Set<string>() : undefined
  for (let i = 0; i < files.length; i++) {
    if (!counted[i]) continue
    for (const l of files[i].lines(chosen[i].number)) {
      if (l.transaction_date < lo || l.transaction_date > hi) continue
      if (seen) {
        if (seen.has(l.id)) continue
        seen.add(l.id)
      }
      yield l
    }
  }
  // Read: the files' text is not held while the transfers are matched.
  for (const f of files) f.release()
}

/** Keeps each file reconciled in the books; says which were reconciled before, and a statement seen before with other content. */
function record(files: ReadBankFile[], used: BankFileUsed[], account: string, ctx: CommandContext): void {
  const now = new Date(ctx.clock.now()).toISOString()
  const store = BooksStore.open(ctx.configDir)
  try {
    const db = store.db
    const byDigest = db.prepare('SELECT first_at FROM bank_files WHERE digest = ?')
    const byStatement = db.prepare('SELECT digest, first_at FROM bank_files WHERE statement_id = ? AND format = ? AND digest <> ? ORDER BY first_at LIMIT 1')
    const put = db.prepare(
      'INSERT INTO bank_files (digest, statement_id, format, account_id, lines, first_at, last_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (digest) DO UPDATE SET last_at = excluded.last_at',
    )
    db.transaction(() => {
      files.forEach((f, i) => {
        const u = used[i]
        const before = byDigest.get<{first_at: string}>(f.digest)
        if (before) u.first_reconciled_at = before.first_at
        const other = byStatement.get<{digest: string; first_at: string}>(f.statement_id, f.format, f.digest)
        if (other) ctx.out.warn(`${u.file} is ${FORMAT_NAMES[f.format]} statement ${shown(f.statement_id)}, reconciled on ${other.first_at.slice(0, 10)} from other content: the bank sent it again changed; check with the bank which is right.`)
        if (u.counted) put.run(f.digest, f.statement_id, f.format, account, u.lines, now, now)
      })
    })
  } finally {
    store.close()
  }
}

/** The note a terminal shows for each file: what it is, and whether it was reconciled before or given twice. */
export function fileNotes(report: FileReconcileReport): string[] {
  return report.bank_files.map((u) => {
    const what = `${shown(u.file)}: ${FORMAT_NAMES[u.format as keyof typeof FORMAT_NAMES]} statement ${shown(u.statement_id)}, account ${u.account ?? '?'}, ${u.lines} line${u.lines === 1 ? '' : 's'}`
    if (!u.counted) return `${what}; the same file as one given before it, counted once.`
    return u.first_reconciled_at ? `${what}; reconciled before (first on ${u.first_reconciled_at.slice(0, 10)}), its lines are counted once.` : `${what}.`
  })
}
