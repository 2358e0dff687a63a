/**
 * Reading and validating a moves CSV, entirely before anything is sent. Pure: text in, rows and
 * every error (with its line number) out.
 *
 * Columns: `from`, `to` (or `from_subaccount_id`, `to_subaccount_id`); `amount` (decimal, with a
 * `currency` column or the default currency) or `amount_in_minor_units`; optional
 * `idempotency_key`, `auto_approve` (true/false/yes/no/1/0) and `metadata.<key>` columns.
 */
import {parse as parseStream} from 'csv-parse'
import {parse as parseSync} from 'csv-parse/sync'
import {createHash} from 'node:crypto'
import {createReadStream, openSync} from 'node:fs'
import {validateMoveCreate} from '../api/moves.js'
import {PayopsError, UsageError} from '../errors.js'
import {normalizeCurrency, parseAmount, parseMinorUnits} from '../money.js'

export interface ImportRow {
  /** Line number in the file (1-based; the header is line 1). */
  line: number
  from_subaccount_id: string
  to_subaccount_id: string
  amount_in_minor_units: number
  currency: string
  auto_approve?: boolean
  client_metadata?: Record<string, string>
  /** From the file's `idempotency_key` column, when present. */
  idempotency_key?: string
  /** Canonical content of the row, for deriving its key. */
  fingerprint: string
  /** The amount was a decimal in `currency` (so the subaccount's currency must match). */
  decimal: boolean
  /** The currency came from the row (a decimal amount or a `currency` cell), not from the default. */
  currencyGiven: boolean
}

export interface RowError {
  line: number
  message: string
}

export interface ParsedFile {
  rows: ImportRow[]
  errors: RowError[]
  columns: string[]
}

const ALIASES: Record<string, string> = {from_subaccount_id: 'from', to_subaccount_id: 'to', amount_minor: 'amount_in_minor_units'}
const KNOWN = new Set(['from', 'to', 'amount', 'currency', 'amount_in_minor_units', 'idempotency_key', 'auto_approve'])
const BOOLEANS: Record<string, boolean> = {true: true, false: false, yes: true, no: false, '1': true, '0': false, y: true, n: false}

/**
 * Validates a moves CSV record by record: the header first, then each row (see parseImportCsv and
 * streamImportCsv). Keeps only what the checks across rows need: the header, the default currency
 * and the line of each `idempotency_key`.
 */
export class RowValidator {
  header: string[] = []
  private fallback = 'USD'
  private readonly keys = new Map<string, number>()

  constructor(private readonly defaultCurrency = 'USD') {}

  /** The header's problems (none: the rows can be read). */
  readHeader(record: string[], headerLine: number): RowError[] {
    const errors: RowError[] = []
    const header = record.map((h) => {
      const name = h.trim().toLowerCase()
      return Object.hasOwn(ALIASES, name) ? ALIASES[name] : name
    })
    this.header = header
    const seen = new Set<string>()
    for (const h of header) {
      if (!h) errors.push({line: headerLine, message: 'the header has an empty column name'})
      else if (seen.has(h)) errors.push({line: headerLine, message: `column "${h}" appears twice`})
      else if (!KNOWN.has(h) && !h.startsWith('metadata.')) errors.push({line: headerLine, message: `unknown column "${h}" (expected from, to, amount, currency, amount_in_minor_units, idempotency_key, auto_approve, metadata.*)`})
      else if (h === 'metadata.') errors.push({line: headerLine, message: 'column "metadata." needs a key name'})
      seen.add(h)
    }
    for (const required of ['from', 'to']) if (!seen.has(required)) errors.push({line: headerLine, message: `missing column "${required}"`})
    if (!seen.has('amount') && !seen.has('amount_in_minor_units')) errors.push({line: headerLine, message: 'missing an amount column: "amount" or "amount_in_minor_units"'})
    if (errors.length) return errors
    try {
      this.fallback = normalizeCurrency(this.defaultCurrency)
    } catch (err) {
      errors.push({line: 0, message: (err as Error).message})
    }
    return errors
  }

  /** One row: the row, or its error. */
  readRow(record: string[], line: number): ImportRow | RowError {
    const header = this.header
    if (record.length !== header.length) return {line, message: `has ${record.length} fields, the header has ${header.length}`}
    const cell: Record<string, string> = Object.create(null) as Record<string, string>
    header.forEach((h, i) => (cell[h] = record[i]))
    const rowErrors: string[] = []
    const attempt = <T>(fn: () => T): T | undefined => {
      try {
        return fn()
      } catch (err) {
        rowErrors.push(err instanceof PayopsError ? err.message : String(err))
        return undefined
      }
    }
    const currency = cell.currency ? attempt(() => normalizeCurrency(cell.currency)) : this.fallback
    let minor: number | undefined
    const hasAmount = Boolean(cell.amount)
    const hasMinor = Boolean(cell.amount_in_minor_units)
    if (hasAmount && hasMinor) rowErrors.push('give amount or amount_in_minor_units, not both')
    else if (hasAmount) minor = currency ? attempt(() => parseAmount(cell.amount, currency)) : undefined
    else if (hasMinor) minor = attempt(() => parseMinorUnits(cell.amount_in_minor_units))
    else rowErrors.push('no amount')
    let autoApprove: boolean | undefined
    if (cell.auto_approve) {
      const word = cell.auto_approve.toLowerCase()
      autoApprove = Object.hasOwn(BOOLEANS, word) ? BOOLEANS[word] : undefined
      if (autoApprove === undefined) rowErrors.push(`auto_approve "${cell.auto_approve}" must be true or false`)
    }
    let metadata: Record<string, string> | undefined
    for (const h of header) {
      if (h.startsWith('metadata.') && cell[h] !== '') (metadata ??= Object.create(null) as Record<string, string>)[h.slice('metadata.'.length)] = cell[h]
    }
    const key = cell.idempotency_key || undefined
    if (key) {
      if (key.length > 255) rowErrors.push('idempotency_key is longer than 255 characters')
      const prev = this.keys.get(key)
      if (prev !== undefined) rowErrors.push(`idempotency_key "${key}" is also used on line ${prev}`)
      else this.keys.set(key, line)
    }
    if (minor !== undefined && currency) {
      attempt(() =>
        validateMoveCreate({
          from_subaccount_id: cell.from,
          to_subaccount_id: cell.to,
          amount_in_minor_units: minor!,
          auto_approve: autoApprove,
          client_metadata: metadata,
        }),
      )
    }
    if (rowErrors.length) return {line, message: rowErrors.map((m) => m.replace(/^Invalid move: /, '')).join('; ')}
    const fingerprint = JSON.stringify([cell.from, cell.to, minor, currency, autoApprove ?? null, metadata ?? null])
    return {
      line,
      from_subaccount_id: cell.from,
      to_subaccount_id: cell.to,
      amount_in_minor_units: minor!,
      currency: currency!,
      auto_approve: autoApprove,
      client_metadata: metadata,
      idempotency_key: key,
      fingerprint,
      decimal: hasAmount,
      currencyGiven: hasAmount || Boolean(cell.currency),
    }
  }
}

const PARSE_OPTIONS = {bom: true, skip_empty_lines: true, relax_column_count: true, trim: true, info: true} as const

function malformed(err: unknown): RowError {
  const e = err as {lines?: number; message?: string}
  return {line: e.lines ?? 0, message: `malformed CSV: ${(e.message ?? '').replace(/ at line \d+$/, '')}`}
}

export function parseImportCsv(text: string, defaultCurrency = 'USD'): ParsedFile {
  let records: Array<{record: string[]; info: {lines: number}}>
  try {
    records = parseSync(text, PARSE_OPTIONS) as never
  } catch (err) {
    return {rows: [], errors: [malformed(err)], columns: []}
  }
  if (records.length === 0) return {rows: [], errors: [{line: 1, message: 'the file is empty: expected a header row and at least one move'}], columns: []}
  const v = new RowValidator(defaultCurrency)
  const headerLine = records[0].info.lines
  const errors = v.readHeader(records[0].record, headerLine)
  if (errors.some((e) => e.line !== 0)) return {rows: [], errors, columns: v.header}
  const rows: ImportRow[] = []
  if (records.length === 1) errors.push({line: headerLine, message: 'the file has a header but no rows'})
  for (const {record, info} of records.slice(1)) {
    const r = v.readRow(record, info.lines)
    if ('fingerprint' in r) rows.push(r)
    else errors.push(r)
  }
  return {rows, errors, columns: v.header}
}

export interface StreamedFile {
  errors: RowError[]
  /** Valid rows. */
  rows: number
  /** SHA-256 of the file's bytes. */
  sha256: string
}

function openCsv(path: string): number {
  try {
    return openSync(path, 'r')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(`Cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`)
  }
}

type Parsed = AsyncIterable<{record: string[]; info: {lines: number}}>

/**
 * The valid rows of a moves CSV, streamed from the file in order (nothing of it is held); `out`
 * collects every error, the count of valid rows and (once the file was read to its end) its
 * SHA-256. The same checks as parseImportCsv.
 */
export async function* streamImportCsv(path: string, defaultCurrency: string, out: StreamedFile): AsyncGenerator<ImportRow> {
  const v = new RowValidator(defaultCurrency)
  const errors = out.errors
  let headerLine = 0
  let seen = 0
  const sha = createHash('sha256')
  const input = createReadStream('', {fd: openCsv(path), highWaterMark: 1 << 16})
  input.on('data', (chunk) => sha.update(chunk))
  const parser = input.pipe(parseStream(PARSE_OPTIONS))
  input.on('error', (err) => parser.destroy(err))
  try {
    for await (const {record, info} of parser as Parsed) {
      if (seen++ === 0) {
        headerLine = info.lines
        errors.push(...v.readHeader(record, headerLine))
        if (errors.some((e) => e.line !== 0)) return
        continue
      }
      const r = v.readRow(record, info.lines)
      if ('fingerprint' in r) {
        out.rows++
        yield r
      } else errors.push(r)
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code && !code.startsWith('CSV_')) throw new UsageError(`Cannot read ${path}: ${code}.`)
    errors.push(malformed(err))
    return
  } finally {
    input.destroy()
  }
  if (seen === 0) errors.push({line: 1, message: 'the file is empty: expected a header row and at least one move'})
  else if (seen === 1) errors.push({line: headerLine, message: 'the file has a header but no rows'})
  else out.sha256 = sha.digest('hex')
}

/**
 * The derived Idempotency-Key of the `n`th row with this content in a batch (n from 1): rows of
 * identical content are numbered 1, 2, 3 in file order (see store.ts).
 */
export function deriveKey(batchId: string, fingerprint: string, n: number): string {
  return `payops-import-${batchId.slice(0, 8)}-${createHash('sha256').update(`${batchId}\n${fingerprint}\n${n}`).digest().toString('hex', 0, 16)}`
}
