/** Sends the rows of an import with bounded concurrency, journaling every key and outcome. */
import type {MovesApi} from '../api/moves.js'
import {ApiError, PayopsError} from '../errors.js'
import type {ImportRow} from './csv.js'
import type {JournalState, JournalWriter} from './journal.js'

export type KeyedRow = ImportRow & {key: string}

export interface Failure extends Record<string, unknown> {
  line: number
  key: string
  status?: number
  error_code?: string
  message: string
}

export interface ImportResult {
  created: number
  replayed: number
  skipped: number
  partial: number
  failed: number
  interrupted: boolean
  failures: Failure[]
}

export interface RunOptions {
  concurrency: number
  signal?: AbortSignal
  onProgress?: (completed: number) => void
}

export async function runImport(moves: MovesApi, rows: KeyedRow[], state: JournalState, journal: JournalWriter, opts: RunOptions): Promise<ImportResult> {
  const result: ImportResult = {created: 0, replayed: 0, skipped: 0, partial: 0, failed: 0, interrupted: false, failures: []}
  const todo: KeyedRow[] = []
  for (const r of rows) {
    if (state.done.has(r.key)) result.skipped++
    else todo.push(r)
  }
  let completed = result.skipped
  opts.onProgress?.(completed)
  let next = 0
  const worker = async () => {
    while (next < todo.length) {
      if (opts.signal?.aborted) {
        result.interrupted = true
        return
      }
      const row = todo[next++]
      const now = () => new Date().toISOString()
      journal.append({type: 'sent', line: row.line, key: row.key, at: now()})
      try {
        const res = await moves.create(
          {
            from_subaccount_id: row.from_subaccount_id,
            to_subaccount_id: row.to_subaccount_id,
            amount_in_minor_units: row.amount_in_minor_units,
            auto_approve: row.auto_approve,
            client_metadata: row.client_metadata,
          },
          row.key,
        )
        const replayed = res.status === 200
        if (res.status === 207) result.partial++
        else if (replayed) result.replayed++
        else result.created++
        journal.append({
          type: 'done',
          line: row.line,
          key: row.key,
          move_id: res.data.id,
          status: res.data.status,
          http_status: res.status,
          replayed,
          ...(res.warning ? {warning: res.warning} : {}),
          at: now(),
        })
      } catch (err) {
        if (!(err instanceof PayopsError)) throw err
        const failure: Failure = {
          line: row.line,
          key: row.key,
          message: err instanceof ApiError ? err.describe() : err.message,
          ...(err instanceof ApiError ? {status: err.status, error_code: err.errorCode} : {}),
        }
        result.failed++
        result.failures.push(failure)
        journal.append({type: 'failed', ...failure, at: now()})
      }
      opts.onProgress?.(++completed)
    }
  }
  await Promise.all(Array.from({length: Math.max(1, Math.min(opts.concurrency, todo.length || 1))}, worker))
  if (next < todo.length) result.interrupted = true
  result.failures.sort((a, b) => a.line - b.line)
  return result
}
