/**
 * What `webhooks listen` prints for an accepted event: one JSON object per line (json, ndjson),
 * CSV rows, or a line for people (table) whose event-supplied text has its control characters
 * escaped. Never throws for an event the listener accepts (nesting is bounded before this runs).
 */
import type {Format} from '../output/index.js'
import type {Paint} from '../output/color.js'
import type {AcceptedEvent} from './listener.js'
import {escapeControls} from './safety.js'

export interface EventPrinterOptions {
  format: Format
  paint: Paint
  /** Show which secret matched (during a rotation). */
  multi: boolean
  /** csv-stringify's `stringify`, loaded by the caller when the format is csv. */
  stringify?: (rows: string[][], opts: {record_delimiter: string}) => string
}

export class EventPrinter {
  private csvHeader: boolean

  constructor(private readonly opts: EventPrinterOptions) {
    this.csvHeader = opts.format === 'csv'
  }

  line({event, timestamp, secretIndex, receivedAt}: AcceptedEvent): string {
    const {format, paint, multi, stringify} = this.opts
    if (format === 'json' || format === 'ndjson') {
      return JSON.stringify({received_at: receivedAt, id: event.id, type: event.type, data: event.data, timestamp: Number(timestamp), secret_index: secretIndex, verified: true}) + '\n'
    }
    if (format === 'csv' && stringify) {
      const rows = [[receivedAt, event.id, event.type, timestamp, String(secretIndex), JSON.stringify(event.data)]]
      if (this.csvHeader) rows.unshift(['received_at', 'id', 'type', 'timestamp', 'secret_index', 'data'])
      this.csvHeader = false
      return stringify(rows, {record_delimiter: '\r\n'})
    }
    const data = escapeControls(JSON.stringify(event.data))
    return `${paint.dim(receivedAt)}  ${paint.bold(escapeControls(event.type))}  ${escapeControls(event.id)}  ${data}${multi ? paint.dim(`  (secret #${secretIndex + 1})`) : ''}\n`
  }
}
