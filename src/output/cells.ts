/**
 * Columns and cells: which fields a table, csv or `--columns` selection shows, and how a cell reads.
 * Pure: no stream, no format.
 */
import {formatMoney, toDecimalString} from '../money.js'
import {UsageError} from '../errors.js'
import {toJson} from '../json.js'

export interface Column {
  /** Key used by `--columns`; a dotted path into the row unless `get` is given. */
  key: string
  header?: string
  get?: (row: Record<string, unknown>) => unknown
  /** Money cell: minor-units field and currency field (or fixed code). */
  money?: {amount: string | ((row: Record<string, unknown>) => unknown); currency: string; fixedCurrency?: string}
  /** Colour the value as a status. */
  status?: boolean
  /** The value is an id: a table shows the name payops knows for it beside a short id. */
  names?: boolean
  /** Dim or bold the cell on a terminal. */
  style?: 'dim' | 'bold'
  /** An id column a fitted table may cut or leave out like any other (ids of lines nobody copies at 80 columns). */
  yields?: boolean
  /** A label: a fitted table cuts it only between words (never narrower than each cell's first word). */
  words?: boolean
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

/** A column's name as typed or as its table header reads: `ACH ROUTING`, `ach-routing` and `ach_routing` alike. */
const nameOf = (s: string) => s.trim().toLowerCase().replace(/[\s_-]+/g, ' ')

/**
 * Resolves `--columns` against the known columns, by key or by table header (`FROM`, `ACH
 * ROUTING`, in any case, with spaces, `-` or `_`); another key is a path into the rows, taken
 * only when `sample` (the first row) has it: an unknown column is a usage error listing what exists.
 */
export function selectColumns(defaults: Column[], known: Column[], selection?: string[], sample?: Record<string, unknown>): Column[] {
  if (!selection || selection.length === 0) return defaults
  return selection.map((key) => {
    const k = key.trim()
    if (!k) throw new UsageError('--columns has an empty column name.')
    const col = known.find((c) => c.key === k) ?? known.find((c) => nameOf(c.header ?? c.key) === nameOf(k) || nameOf(c.key) === nameOf(k))
    if (col) return col
    if (sample !== undefined && getPath(sample, k) === undefined) {
      const names = [...new Set([...known.map((c) => c.key), ...Object.keys(sample)])]
      throw new UsageError(`--columns: unknown column "${k}" (available: ${names.join(', ')}).`)
    }
    return {key: k}
  })
}

function moneyParts(col: Column, row: Record<string, unknown>): {amount: unknown; currency: string | undefined} {
  const m = col.money!
  // No currency named: none is assumed (the cell says so).
  const currency = (getPath(row, m.currency) as string | undefined) || m.fixedCurrency || undefined
  return {amount: typeof m.amount === 'function' ? m.amount(row) : getPath(row, m.amount), currency}
}

/** The plain value of a cell, as csv shows it. */
export function cellText(col: Column, row: Record<string, unknown>, forCsv = false): string {
  if (col.money) {
    const {amount, currency} = moneyParts(col, row)
    if (typeof amount !== 'number' && typeof amount !== 'bigint') return ''
    if (!currency) return forCsv ? `${amount} minor units (currency unknown)` : formatMoney(amount, null)
    return forCsv ? `${toDecimalString(amount, currency)} ${currency.toUpperCase()}` : formatMoney(amount, currency)
  }
  const v = col.get ? col.get(row) : getPath(row, col.key)
  if (v === undefined || v === null) return ''
  if (typeof v === 'object') return toJson(v)
  return String(v)
}

export function headerOf(col: Column): string {
  return (col.header ?? col.key.replace(/[._]/g, ' ')).toUpperCase()
}

/**
 * Projects an object to the selected columns (json output with `--columns`), keeping each field's
 * JSON type: a field as the API returned it (a list stays a list), a money column as its integer
 * minor units, a computed column as computed.
 */
export function project(row: Record<string, unknown>, cols: Column[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const c of cols) {
    const raw = getPath(row, c.key)
    out[c.key] = raw !== undefined ? raw : c.money ? (typeof c.money.amount === 'function' ? c.money.amount(row) : getPath(row, c.money.amount)) : c.get ? c.get(row) : null
  }
  return out
}

/**
 * Column widths that fit `max` characters (two spaces between columns): the widest columns give
 * way first, none below `min` (or its natural width, when that is smaller). Pure.
 */
export function fitWidths(natural: number[], max: number, min = 6): number[] {
  const widths = [...natural]
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * Math.max(0, widths.length - 1)
  while (total() > max) {
    let widest = -1
    for (let i = 0; i < widths.length; i++) if (widths[i] > Math.min(min, natural[i]) && (widest < 0 || widths[i] > widths[widest])) widest = i
    if (widest < 0) break
    widths[widest]--
  }
  return widths
}

/** Whether a column holds ids or keys to copy (`id`, `…_id`, `key`): a fitted table keeps them whole. */
export function holdsIds(col: Column): boolean {
  return !col.names && !col.yields && (col.key === 'id' || col.key === 'key' || col.key.endsWith('_id'))
}

/** What a fitted table shows: the columns (indexes, in order), their widths, and those left out. */
export interface TablePlan {
  shown: number[]
  widths: number[]
  hidden: number[]
}

/**
 * Fits a table in `max` characters (two spaces between columns), as gh does: columns that hold
 * ids (`keep`) stay whole while the others give way, widest first, down to `min` (or their
 * natural width); a column empty in every row is left out first, then the rightmost other
 * columns, one at a time. Only when the ids alone do not fit are they cut. A column with a
 * `floor` (money: a cut amount would mislead) narrows no further than its cells, only its header
 * gives way; it can be left out like any other. A table that fits is left as it is. Pure.
 */
export function planTable(natural: number[], max: number, opts: {keep?: boolean[]; empty?: boolean[]; min?: number; floor?: (number | undefined)[]} = {}): TablePlan {
  const min = opts.min ?? 10
  const keep = opts.keep ?? natural.map(() => false)
  const total = (idx: number[], w: number[]) => idx.reduce((a, i) => a + w[i], 0) + 2 * Math.max(0, idx.length - 1)
  let shown = natural.map((_, i) => i)
  const hidden: number[] = []
  if (total(shown, natural) <= max) return {shown, widths: [...natural], hidden}
  if (opts.empty) {
    hidden.push(...shown.filter((i) => opts.empty![i] && !keep[i]))
    shown = shown.filter((i) => !hidden.includes(i))
  }
  const narrow = (idx: number[]) => {
    const w = [...natural]
    while (total(idx, w) > max) {
      let widest = -1
      for (const i of idx) if (!keep[i] && w[i] > (opts.floor?.[i] ?? Math.min(min, natural[i])) && (widest < 0 || w[i] > w[widest])) widest = i
      if (widest < 0) return undefined
      w[widest]--
    }
    return w
  }
  for (;;) {
    const w = narrow(shown)
    if (w) return {shown, widths: shown.map((i) => w[i]), hidden: hidden.sort((a, b) => a - b)}
    const last = [...shown].reverse().find((i) => !keep[i])
    // Only ids left (or one column): they give way as any column would.
    if (last === undefined || shown.length === 1) break
    shown = shown.filter((i) => i !== last)
    hidden.push(last)
  }
  const cut = fitWidths(shown.map((i) => natural[i]), max)
  return {shown, widths: cut, hidden: hidden.sort((a, b) => a - b)}
}

/** A date or a time (ISO 8601): a fitted table never cuts one. */
const TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/

/** How narrow a label column gets before the columns right of it are left out. */
const LABEL_MIN = 20

/**
 * How narrow a fitted table may make a column: never narrower than its header (two columns never
 * show the same cut header), than its money, statuses or times (a cut amount, state or time would
 * mislead), than 20 characters of a label and the first word of each; else down to `min` (or its
 * natural width).
 */
export function columnFloor(col: Column, header: string, cells: string[], natural: number, min = 10): number {
  const filled = cells.filter((t) => t !== '')
  const widest = Math.max(0, ...filled.map((t) => t.length))
  let base = Math.min(min, natural)
  if (col.money || col.status || (filled.length > 0 && filled.every((t) => TIME.test(t)))) base = widest
  else if (col.words) base = Math.max(Math.min(LABEL_MIN, natural), ...filled.map((t) => Math.min(t.length, (t.split(' ')[0] ?? t).length + 1)))
  return Math.max(header.length, base)
}

/** Cuts a label to `width` characters between two words, marking the cut with …. */
export function cutAtWord(text: string, width: number): string {
  if (text.length <= width) return text
  const head = text.slice(0, Math.max(0, width - 1))
  if (text[head.length] === ' ') return `${head.trimEnd()}…`
  const space = head.lastIndexOf(' ')
  return space > 0 ? `${head.slice(0, space).trimEnd()}…` : `${head}…`
}

/** Cuts a cell to `width` characters, marking the cut with …. */
export function truncateCell(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text
}

/** `Payroll (ef63a1b2…)`, or the id itself when no name is known. */
export function labelled(id: string, name: string | undefined): string {
  return name ? `${name} (${id.slice(0, 8)}…)` : id
}
