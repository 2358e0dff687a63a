/**
 * Rendering: table, json, ndjson and csv on stdout; warnings, hints and progress on stderr only.
 * The output layer never calls the API: it is handed resources, arrays or async iterables.
 */
import type {Writable} from 'node:stream'
import {formatMoney, toDecimalString} from '../money.js'
import {loadJmespath} from '../interop.js'
import {UsageError} from '../errors.js'
import {colorize, type Paint} from './color.js'

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const
export type Format = (typeof FORMATS)[number]

export interface Column {
  /** Key used by `--columns`; a dotted path into the row unless `get` is given. */
  key: string
  header?: string
  get?: (row: Record<string, unknown>) => unknown
  /** Money cell: minor-units field and currency field (or fixed code). */
  money?: {amount: string; currency: string; fixedCurrency?: string}
  /** Colour the value as a status. */
  status?: boolean
}

export interface OutputOptions {
  format: Format
  color: boolean
  /** `--columns` selection. */
  columns?: string[]
  /** `--query` JMESPath expression. */
  query?: string
  stdout?: Writable
  stderr?: Writable
}

export function defaultFormat(isTTY: boolean | undefined): Format {
  return isTTY ? 'table' : 'json'
}

export function getPath(row: unknown, path: string): unknown {
  if (row === null || typeof row !== 'object') return undefined
  if (path in (row as Record<string, unknown>)) return (row as Record<string, unknown>)[path]
  let cur: unknown = row
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[part]
  }
  return cur
}

/** Resolves `--columns` against the known columns; unknown keys become plain path columns. */
export function selectColumns(defaults: Column[], known: Column[], selection?: string[]): Column[] {
  if (!selection || selection.length === 0) return defaults
  return selection.map((key) => {
    const k = key.trim()
    if (!k) throw new UsageError('--columns has an empty column name.')
    return known.find((c) => c.key === k) ?? {key: k}
  })
}

function moneyParts(col: Column, row: Record<string, unknown>): {amount: unknown; currency: string} {
  const m = col.money!
  const currency = (getPath(row, m.currency) as string | undefined) || m.fixedCurrency || 'USD'
  return {amount: getPath(row, m.amount), currency}
}

/** The plain value of a cell, as csv shows it. */
export function cellText(col: Column, row: Record<string, unknown>, forCsv = false): string {
  if (col.money) {
    const {amount, currency} = moneyParts(col, row)
    if (typeof amount !== 'number' && typeof amount !== 'bigint') return ''
    return forCsv ? `${toDecimalString(amount, currency)} ${currency.toUpperCase()}` : formatMoney(amount, currency)
  }
  const v = col.get ? col.get(row) : getPath(row, col.key)
  if (v === undefined || v === null) return ''
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

function headerOf(col: Column): string {
  return (col.header ?? col.key.replace(/[._]/g, ' ')).toUpperCase()
}

/** Projects an object to the selected columns (for json output with `--columns`). */
function project(row: Record<string, unknown>, cols: Column[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const c of cols) out[c.key] = c.get ? c.get(row) : getPath(row, c.key)
  return out
}

export class Output {
  readonly format: Format
  readonly color: boolean
  private readonly selection?: string[]
  private readonly query?: string
  private readonly stdout: Writable
  private readonly stderr: Writable
  readonly paint: Paint

  constructor(opts: OutputOptions) {
    this.format = opts.format
    this.color = opts.color
    this.selection = opts.columns
    this.query = opts.query
    this.stdout = opts.stdout ?? process.stdout
    this.stderr = opts.stderr ?? process.stderr
    this.paint = colorize(opts.color)
  }

  get machine(): boolean {
    return this.format !== 'table'
  }

  /** A line on stderr (notes, hints). */
  note(message: string): void {
    this.stderr.write(message.endsWith('\n') ? message : `${message}\n`)
  }

  /**
   * The outcome of a money request: one JSON line `{"outcome":{...}}` on stderr in machine
   * formats (beside the resource on stdout), the sentence on a terminal.
   */
  outcome(fields: Record<string, unknown>, sentence: string): void {
    if (this.machine) this.stderr.write(`${JSON.stringify({outcome: fields})}\n`)
    else this.note(sentence)
  }

  warn(message: string): void {
    this.note(`${this.paint.yellow('Warning:')} ${message}`)
  }

  private write(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const ok = this.stdout.write(text, (err) => (err ? reject(err) : undefined))
      if (ok) resolve()
      else this.stdout.once('drain', resolve)
    })
  }

  private async applyQuery(value: unknown): Promise<unknown> {
    if (!this.query) return value
    const jmespath = await loadJmespath()
    try {
      return jmespath.search(value as never, this.query)
    } catch (err) {
      throw new UsageError(`--query "${this.query}" is not a valid JMESPath expression: ${(err as Error).message}`)
    }
  }

  /** Renders one resource. */
  async resource(row: Record<string, unknown>, defaults: Column[], known: Column[] = defaults): Promise<void> {
    const cols = selectColumns(defaults, known, this.selection)
    if (this.query) return this.queried(this.selection ? project(row, cols) : row)
    switch (this.format) {
      case 'json':
        return this.write(JSON.stringify(this.selection ? project(row, cols) : row, null, 2) + '\n')
      case 'ndjson':
        return this.write(JSON.stringify(this.selection ? project(row, cols) : row) + '\n')
      case 'csv':
        return this.write(await this.csv([row], cols, true))
      case 'table': {
        const width = Math.max(...cols.map((c) => headerOf(c).length))
        const lines = cols.map((c) => {
          const text = cellText(c, row)
          return `${this.paint.bold(headerOf(c).padEnd(width))}  ${c.status ? this.paint.status(text) : text}`
        })
        return this.write(lines.join('\n') + '\n')
      }
    }
  }

  /** Renders a list, streaming item by item for json, ndjson and csv. Returns the item count. */
  async list(items: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>, defaults: Column[], known: Column[] = defaults): Promise<number> {
    let cols = selectColumns(defaults, known, this.selection)
    let count = 0
    if (cols.length === 0 && (this.format === 'table' || this.format === 'csv')) {
      // No column set (raw API output): take the first item's top-level keys.
      const it = (Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : (items as Iterable<Record<string, unknown>>)[Symbol.iterator]()) as AsyncIterator<Record<string, unknown>> | Iterator<Record<string, unknown>>
      const first = await it.next()
      if (first.done) return this.list([], [{key: 'id'}])
      cols = Object.keys(first.value).map((key) => ({key}))
      const rest = async function* () {
        yield first.value
        for (let r = await it.next(); !r.done; r = await it.next()) yield r.value
      }
      return this.list(rest(), cols)
    }
    if (this.query) {
      const all: unknown[] = []
      for await (const it of items) all.push(this.selection ? project(it, cols) : it)
      await this.queried(all)
      return all.length
    }
    switch (this.format) {
      case 'json':
      case 'ndjson': {
        // Items are written in chunks of about 64 KB, waiting for stdout to drain between them:
        // memory stays flat however long the list, and there is no write per item.
        const json = this.format === 'json'
        let chunk = json ? '[' : ''
        for await (const it of items) {
          const text = JSON.stringify(this.selection ? project(it, cols) : it)
          chunk += json ? (count ? ',\n  ' : '\n  ') + text : text + '\n'
          count++
          if (chunk.length >= 65_536) {
            await this.write(chunk)
            chunk = ''
          }
        }
        if (json) chunk += count ? '\n]\n' : ']\n'
        if (chunk) await this.write(chunk)
        return count
      }
      case 'csv': {
        let batch: Record<string, unknown>[] = []
        let header = true
        for await (const it of items) {
          batch.push(it)
          count++
          if (batch.length >= 500) {
            await this.write(await this.csv(batch, cols, header))
            header = false
            batch = []
          }
        }
        if (batch.length || header) await this.write(await this.csv(batch, cols, header))
        return count
      }
      case 'table': {
        let batch: Record<string, unknown>[] = []
        let first = true
        for await (const it of items) {
          batch.push(it)
          count++
          if (batch.length >= 1000) {
            await this.write(await this.table(batch, cols, first))
            first = false
            batch = []
          }
        }
        if (batch.length) await this.write(await this.table(batch, cols, first))
        else if (first) this.note('No items.')
        return count
      }
    }
  }

  /** Renders any JSON value (the `api` command, query results). */
  /** One line of text on stdout, as it is (banners; never data a script parses). */
  writeLine(text: string): Promise<void> {
    return this.write(`${text}\n`)
  }

  /** One compact JSON line on stdout, whatever the format (a start-up line scripts read). */
  jsonLine(value: unknown): Promise<void> {
    return this.write(`${JSON.stringify(value)}\n`)
  }

  /** --query and --columns apply to data; a command whose output is not data refuses them (exit 2). */
  refuseSelection(what: string): void {
    if (this.query !== undefined) throw new UsageError(`--query does not apply to ${what}.`)
    if (this.selection !== undefined) throw new UsageError(`--columns does not apply to ${what}.`)
  }

  async value(value: unknown): Promise<void> {
    return this.emit(await this.applyQuery(value))
  }

  private async emit(v: unknown): Promise<void> {
    if (this.format === 'ndjson' && Array.isArray(v)) {
      for (const it of v) await this.write(JSON.stringify(it) + '\n')
      return
    }
    if (this.format === 'ndjson') return this.write(JSON.stringify(v) + '\n')
    return this.write(JSON.stringify(v, null, 2) + '\n')
  }

  private async queried(value: unknown): Promise<void> {
    const v = await this.applyQuery(value)
    if (this.format === 'table' || this.format === 'csv') {
      if (v === null || typeof v !== 'object') return this.write(`${v === null || v === undefined ? '' : String(v)}\n`)
    }
    return this.emit(v)
  }

  private async csv(rows: Record<string, unknown>[], cols: Column[], header: boolean): Promise<string> {
    const {stringify} = await import('csv-stringify/sync')
    const records = rows.map((r) => cols.map((c) => cellText(c, r, true)))
    return stringify(header ? [cols.map((c) => c.key), ...records] : records, {record_delimiter: '\r\n', quoted_match: /[\r\n]/})
  }

  private async table(rows: Record<string, unknown>[], cols: Column[], withHeader: boolean): Promise<string> {
    const {default: Table} = await import('cli-table3')
    const table = new Table({
      head: withHeader ? cols.map((c) => this.paint.bold(headerOf(c))) : [],
      chars: {top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  '},
      style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0},
    })
    for (const r of rows) {
      table.push(cols.map((c) => {
        const text = cellText(c, r)
        return c.status ? this.paint.status(text) : text
      }))
    }
    return table.toString() + '\n'
  }

  /** Renders a failed command: one line on stderr, plus `{"error": {...}}` in machine formats. */
  error(line: string, json?: Record<string, unknown>): void {
    this.stderr.write(`${this.paint.red('Error:')} ${line}\n`)
    if (json && this.format !== 'table') this.stderr.write(JSON.stringify({error: json}) + '\n')
  }
}
