/**
 * The table renderer: cells escaped (src/output/safe.ts), id columns named, and on a terminal the
 * table fitted to its width (ids whole, other columns cut with … or left out, named on stderr).
 */
import {cellText, columnFloor, cutAtWord, headerOf, holdsIds, labelled, planTable, truncateCell, type Column, type TablePlan} from './cells.js'
import type {Paint} from './color.js'
import {escapeControls, guardCsvCell} from './safe.js'

export interface TableOptions {
  /** Terminal width tables fit (undefined: no limit). */
  width?: number
  /** Columns asked for by name (--columns): shown even when empty. */
  selection?: string[]
  /** Colours of the table renderer, applied to cells already escaped. */
  ink: Paint
  /** Colours of messages. */
  paint: Paint
  namer?: (id: string) => string | undefined
  note(text: string): void
}

export class Tables {
  constructor(private readonly o: TableOptions) {}

  async table(rows: Record<string, unknown>[], cols: Column[], withHeader: boolean): Promise<string> {
    const {default: Table} = await import('cli-table3')
    const texts = rows.map((r) => cols.map((c) => this.text(c, r)))
    // On a terminal the table fits its width (--wide turns this off): ids stay whole, the other
    // columns are cut with … or, when they cannot fit, left out (named on stderr).
    const headers = cols.map((c) => escapeControls(headerOf(c)))
    const natural = cols.map((c, i) => Math.max(headers[i].length, ...texts.map((t) => t[i].length)))
    const plan: TablePlan = this.o.width
      ? planTable(natural, this.o.width, {
          keep: cols.map(holdsIds),
          // Headers, money and times are never cut, labels only between words; a column may be left out.
          floor: cols.map((c, i) => columnFloor(c, headers[i], texts.map((t) => t[i]), natural[i])),
          // Columns asked for by name are shown even when empty.
          empty: this.o.selection ? undefined : cols.map((_, i) => texts.every((t) => t[i] === '')),
        })
      : {shown: cols.map((_, i) => i), widths: natural, hidden: []}
    if (plan.hidden.length && withHeader) {
      this.o.note(this.o.paint.dim(`Not shown at this width: ${plan.hidden.map((i) => cols[i].key).join(', ')} (--wide shows every column; --columns picks them).`))
    }
    const table = new Table({
      head: withHeader ? plan.shown.map((ci, k) => this.o.ink.bold(truncateCell(headers[ci], plan.widths[k]))) : [],
      chars: {top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  '},
      style: {head: [], border: [], 'padding-left': 0, 'padding-right': 0},
    })
    for (const t of texts) table.push(plan.shown.map((ci, k) => this.cell(cols[ci], (cols[ci].words ? cutAtWord : truncateCell)(t[ci], plan.widths[k]))))
    return table.toString() + '\n'
  }

  /**
   * A cell's text in a table, where values enter the human renderer: escaped (src/output/safe.ts);
   * an id column shows the name known for the id (the names book's name, escaped alike).
   */
  text(col: Column, row: Record<string, unknown>): string {
    const text = cellText(col, row)
    return escapeControls(col.names && text && this.o.namer ? labelled(text, this.o.namer(text)) : text)
  }

  /** A cell's text (already escaped) painted for a terminal: status colour, or its style. */
  cell(col: Column, text: string): string {
    if (col.status) return this.o.ink.status(text)
    if (col.style) return this.o.ink[col.style](text)
    return text
  }

  /** One resource as a two-column table: each column's header, then its cell. */
  resource(row: Record<string, unknown>, cols: Column[]): string {
    const headers = cols.map((c) => escapeControls(headerOf(c)))
    const width = Math.max(...headers.map((h) => h.length))
    const room = this.o.width ? Math.max(10, this.o.width - width - 2) : Infinity
    const lines = cols.map((c, i) => `${this.o.ink.bold(headers[i].padEnd(width))}  ${this.cell(c, truncateCell(this.text(c, row), room))}`)
    return lines.join('\n') + '\n'
  }
}

/** A CSV record: each cell as csv shows it, guarded against spreadsheet formulas. */
export function csvRecord(cols: Column[], row: Record<string, unknown>): string[] {
  return cols.map((c) => guardCsvCell(cellText(c, row, true)))
}

/** The CSV header row (a raw answer's keys may come from the server): guarded alike. */
export function csvHeader(cols: Column[]): string[] {
  return cols.map((c) => guardCsvCell(c.key))
}

/** Rows as CSV text (a header first when asked). */
export async function csvText(rows: Record<string, unknown>[], cols: Column[], header: boolean): Promise<string> {
  const {stringify} = await import('csv-stringify/sync')
  const records = rows.map((r) => csvRecord(cols, r))
  return stringify(header ? [csvHeader(cols), ...records] : records, {record_delimiter: '\r\n', quoted_match: /[\r\n]/})
}
