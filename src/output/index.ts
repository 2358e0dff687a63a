/**
 * Rendering: table, json, ndjson and csv on stdout; warnings, hints and progress on stderr only.
 * The output layer never calls the API: it is handed resources, arrays or async iterables.
 *
 * Text from outside never drives the terminal (src/output/safe.ts): every human write here (table
 * cells and headers, sentences, notes, warnings, errors, hints) escapes control characters, C1,
 * bidi overrides and invisible format characters, letting through only our own line breaks and
 * the colour codes of `paint`; JSON escapes them as JSON does and CSV cells are formula-guarded.
 * A command that renders through this class is safe by default.
 */
import type {Writable} from 'node:stream'
import {UsageError} from '../errors.js'

import {cellText, project, selectColumns, type Column} from './cells.js'
import {applyQuery, compileQuery} from './query.js'
import {csvHeader, csvRecord, csvText, Tables} from './table.js'
import {colorize, trustedPaint, type Paint} from './color.js'

export {cellText, getPath, selectColumns, type Column} from './cells.js'
import {escapeControls, guardCsvCell, safeJson, terminalLine, terminalLines} from './safe.js'
export {queryHint} from './query.js'
import {favourMemory} from '../memory.js'

export const FORMATS = ['table', 'json', 'ndjson', 'csv'] as const
export type Format = (typeof FORMATS)[number]

/** What `Output.stream` returns: rows written one by one, each at once. */
export interface RowStream {
  /** Writes one row now (it does not wait for stdout to drain: the rows of a stream are small). */
  write(row: Record<string, unknown>): void
  /** Rows written so far. */
  readonly count: number
}

export interface OutputOptions {
  format: Format
  color: boolean
  /** `--columns` selection. */
  columns?: string[]
  /** `--query` JMESPath expression. */
  query?: string
  stdout: Writable
  stderr: Writable
  /** Terminal width tables fit (undefined: no limit, as with --wide or without a terminal). */
  width?: number
  /** Names of ids (subaccounts, treasury accounts) for table cells of id columns. */
  namer?: (id: string) => string | undefined
}

export function defaultFormat(isTTY: boolean | undefined): Format {
  return isTTY ? 'table' : 'json'
}

export class Output {
  readonly format: Format
  readonly color: boolean
  private readonly selection?: string[]
  private readonly query?: string
  private readonly stdout: Writable
  private readonly stderr: Writable
  private readonly width?: number
  private readonly tables: Tables
  /** Colours for messages composed by commands (their codes pass the human writers). */
  readonly paint: Paint
  /** Colours of the table renderer, applied to cells already escaped. */
  private readonly ink: Paint

  constructor(opts: OutputOptions) {
    this.format = opts.format
    this.color = opts.color
    this.selection = opts.columns
    this.query = opts.query
    this.stdout = opts.stdout
    this.stderr = opts.stderr
    this.paint = trustedPaint(opts.color)
    this.ink = colorize(opts.color)
    this.width = opts.width
    this.tables = new Tables({width: opts.width, selection: opts.columns, ink: this.ink, paint: this.paint, namer: opts.namer, note: (text) => this.note(text)})
  }

  get machine(): boolean {
    return this.format !== 'table'
  }

  /** A table fitted to the terminal's width (not --wide, not another format). */
  get fitted(): boolean {
    return this.format === 'table' && this.width !== undefined
  }

  /**
   * A line on stderr (notes, hints), or several given as an array: text from outside in it is
   * escaped (a newline inside a string too), our own colours pass.
   */
  note(message: string | readonly string[]): void {
    this.stderr.write(terminalLines(message))
  }

  /**
   * The outcome of a money request: one JSON line `{"outcome":{...}}` on stderr in machine
   * formats (beside the resource on stdout), the sentence on a terminal.
   */
  outcome(fields: Record<string, unknown>, sentence: string): void {
    if (this.machine) this.stderr.write(`${safeJson({outcome: fields})}\n`)
    else this.note(sentence)
  }

  /**
   * Where a list stopped, for scripts that page with --cursor: one JSON line
   * `{"page":{"has_more":…,"next_cursor":…,"previous_cursor":…}}` on stderr in machine formats;
   * on a terminal a hint with the next cursor when there is more.
   */
  page(p: {hasMore: boolean; nextCursor?: string | null; previousCursor?: string | null}): void {
    if (this.machine) this.stderr.write(`${safeJson({page: {has_more: p.hasMore, next_cursor: p.nextCursor ?? null, previous_cursor: p.previousCursor ?? null}})}\n`)
    else if (p.hasMore && p.nextCursor) this.note(this.paint.dim(`More items: --cursor ${p.nextCursor} (or --all)`))
    else if (p.hasMore) this.warn('More items exist, but the server gave no next_cursor: this page is not the whole list.')
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
    return this.query ? applyQuery(this.query, value) : value
  }

  /** Renders one resource. */
  async resource(row: Record<string, unknown>, defaults: Column[], known: Column[] = defaults): Promise<void> {
    const cols = selectColumns(defaults, known, this.selection, row)
    if (this.query) return this.queried(this.selection ? project(row, cols) : row)
    switch (this.format) {
      case 'json':
        return this.write(safeJson(this.selection ? project(row, cols) : row, 2) + '\n')
      case 'ndjson':
        return this.write(safeJson(this.selection ? project(row, cols) : row) + '\n')
      case 'csv':
        return this.write(await csvText([row], cols, true))
      case 'table':
        return this.write(this.tables.resource(row, cols))
    }
  }

  /** Renders a list, streaming item by item for json, ndjson and csv. Returns the item count. */
  async list(items: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>, defaults: Column[], known: Column[] = defaults): Promise<number> {
    // A list that arrives page by page may be long: the heap is kept near what is live.
    if (Symbol.asyncIterator in items) favourMemory()
    let cols = selectColumns(defaults, known, this.selection)
    if (this.selection && !(items as {checked?: true}).checked) {
      // The first item tells which fields exist: an unknown column is refused before any row.
      const it = (Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : (items as Iterable<Record<string, unknown>>)[Symbol.iterator]()) as AsyncIterator<Record<string, unknown>> | Iterator<Record<string, unknown>>
      const first = await it.next()
      if (!first.done) selectColumns(defaults, known, this.selection, first.value)
      const rest = Object.assign(
        (async function* () {
          if (!first.done) yield first.value
          for (let r = await it.next(); !r.done; r = await it.next()) yield r.value
        })(),
        {checked: true as const},
      )
      return this.list(rest, defaults, known)
    }
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
    return this.writeItems(items, cols)
  }

  /** The items of a list in the output format, written as they come: memory stays flat however long the list. */
  private async writeItems(items: AsyncIterable<Record<string, unknown>> | Iterable<Record<string, unknown>>, cols: Column[]): Promise<number> {
    let count = 0
    switch (this.format) {
      case 'json':
      case 'ndjson': {
        // Items are written in chunks of about 64 KB, waiting for stdout to drain between them:
        // memory stays flat however long the list, and there is no write per item.
        const json = this.format === 'json'
        let chunk = json ? '[' : ''
        for await (const it of items) {
          const text = safeJson(this.selection ? project(it, cols) : it)
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
            await this.write(await csvText(batch, cols, header))
            header = false
            batch = []
          }
        }
        if (batch.length || header) await this.write(await csvText(batch, cols, header))
        return count
      }
      case 'table': {
        let batch: Record<string, unknown>[] = []
        let first = true
        for await (const it of items) {
          batch.push(it)
          count++
          if (batch.length >= 1000) {
            await this.write(await this.tables.table(batch, cols, first))
            first = false
            batch = []
          }
        }
        if (batch.length) await this.write(await this.tables.table(batch, cols, first))
        else if (first) this.note('No items.')
        return count
      }
    }
  }

  /** One line of text on stdout for people (a sentence, a banner; never data a script parses): text from outside in it escaped. */
  writeLine(text: string): Promise<void> {
    return this.write(`${terminalLine(text)}\n`)
  }

  /**
   * A document in a file format (an OFX statement) on stdout, exactly as given: the format's own
   * escaping applies to what came from outside (its writer must remove control characters).
   */
  document(text: string): Promise<void> {
    return this.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** One compact JSON line on stdout, whatever the format (a start-up line scripts read). */
  jsonLine(value: unknown): Promise<void> {
    return this.write(`${safeJson(value)}\n`)
  }

  /** --query and --columns apply to data; a command whose output is not data refuses them (exit 2). */
  refuseSelection(what: string): void {
    if (this.query !== undefined) throw new UsageError(`--query does not apply to ${what}.`)
    if (this.selection !== undefined) throw new UsageError(`--columns does not apply to ${what}.`)
  }

  /** Renders any JSON value (the `api` command, query results). */
  async value(value: unknown): Promise<void> {
    return this.emit(await this.applyQuery(this.selection ? this.projectValue(value) : value))
  }

  /** `--columns` on any JSON value: an object, or each object of a list, keeps only those fields. */
  private projectValue(value: unknown): unknown {
    const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
    if (Array.isArray(value)) return value.map((v) => (isObject(v) ? project(v, selectColumns([], [], this.selection, v)) : v))
    if (isObject(value)) return project(value, selectColumns([], [], this.selection, value))
    throw new UsageError('--columns applies to JSON objects; this answer is not one.')
  }

  private async emit(v: unknown): Promise<void> {
    if (this.format === 'ndjson' && Array.isArray(v)) {
      for (const it of v) await this.write(safeJson(it) + '\n')
      return
    }
    if (this.format === 'ndjson') return this.write(safeJson(v) + '\n')
    return this.write(safeJson(v, 2) + '\n')
  }

  private async queried(value: unknown): Promise<void> {
    const v = await this.applyQuery(value)
    if (this.format === 'table' || this.format === 'csv') {
      if (v === null || typeof v !== 'object') return this.write(`${this.scalar(v)}\n`)
    }
    return this.emit(v)
  }

  /** A scalar --query result as a line: escaped in a table, exact (a formula guarded) in csv. */
  private scalar(v: unknown): string {
    const text = v === null || v === undefined ? '' : String(v)
    return this.format === 'csv' ? guardCsvCell(text) : escapeControls(text)
  }


  /**
   * A result people read as one sentence: on a terminal (table, without --columns or --query) the
   * sentence; otherwise the row, as `resource` renders it, or with `oneLine` as one `stream` row
   * (a compact JSON line in json and ndjson).
   */
  async result(row: Record<string, unknown>, defaults: Column[], sentence: string, opts: {known?: Column[]; oneLine?: boolean} = {}): Promise<void> {
    if (this.format === 'table' && !this.selection && !this.query) return this.writeLine(sentence)
    if (opts.oneLine && this.machine) {
      const rows = await this.stream(defaults, opts.known)
      rows.write(row)
      return
    }
    return this.resource(row, defaults, opts.known)
  }

  /**
   * Rows as they come (an unbounded stream such as `webhooks listen`), each written at once: one
   * compact JSON object per line in json and ndjson alike (a stream has no end to close an array),
   * CSV with one header before the first row, or on a terminal one line per row, its cells
   * separated by two spaces with control characters made visible, and no header. `--columns`
   * selects (and in JSON projects) as elsewhere; `--query` is applied to each row and each result
   * is one line (JSON, or a scalar as text in table and csv). Both are checked here, before any row.
   */
  async stream(defaults: Column[], known: Column[] = defaults): Promise<RowStream> {
    const cols = selectColumns(defaults, known, this.selection)
    const query = this.query ? await compileQuery(this.query) : undefined
    const stringify = this.format === 'csv' && !query ? (await import('csv-stringify/sync')).stringify : undefined
    let header = this.format === 'csv'
    let count = 0
    const shaped = (row: Record<string, unknown>) => (this.selection ? project(row, cols) : row)
    const text = (row: Record<string, unknown>): string => {
      if (query) {
        const v = query(shaped(row))
        if (this.machine && this.format !== 'csv') return safeJson(v ?? null) + '\n'
        return `${v !== null && typeof v === 'object' ? safeJson(v) : this.scalar(v)}\n`
      }
      switch (this.format) {
        case 'json':
        case 'ndjson':
          return safeJson(shaped(row)) + '\n'
        case 'csv': {
          const records = [csvRecord(cols, row)]
          if (header) records.unshift(csvHeader(cols))
          header = false
          return stringify!(records, {record_delimiter: '\r\n', quoted_match: /[\r\n]/})
        }
        case 'table':
          return cols.map((c) => this.tables.cell(c, escapeControls(cellText(c, row)))).join('  ') + '\n'
      }
    }
    const stdout = this.stdout
    return {
      write(row) {
        const t = text(row)
        count++
        stdout.write(t)
      },
      get count() {
        return count
      },
    }
  }


  /**
   * Renders a failed command: one line on stderr (a server's message in it escaped), plus
   * `{"error": {...}}` in machine formats.
   */
  error(line: string, json?: Record<string, unknown>): void {
    this.stderr.write(terminalLines(`${this.paint.red('Error:')} ${line}`))
    if (json && this.format !== 'table') this.stderr.write(safeJson({error: json}) + '\n')
  }
}
