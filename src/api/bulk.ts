/** Runs one API call per id and gathers a per-item report (bulk approve and similar). */
import {ApiError, ExitCode, PartialError, PayopsError, type ExitCodeValue} from '../errors.js'
import type {ApiResponse} from './client.js'

export interface ItemResult extends Record<string, unknown> {
  id: string
  /** `settled`, `partial` (207) or `error` */
  result: string
  move?: Record<string, unknown>
  warning?: string
  message?: string
  error?: Record<string, unknown>
}

export class BulkReport {
  constructor(readonly results: ItemResult[], private readonly codes: ExitCodeValue[]) {}

  get failed(): number {
    return this.results.filter((r) => r.result !== 'ok').length
  }

  /** Exit 0 when all succeeded; the error's own code when every item failed alike; else 6. */
  throwIfFailed(verb: string): void {
    if (this.failed === 0) return
    const all = this.results.length
    const distinct = new Set(this.codes.filter((c) => c !== ExitCode.OK))
    const firstError = this.results.find((r) => r.result === 'error')
    const msg = all === 1 && firstError?.message ? `Could not ${verb} ${firstError.id}: ${firstError.message}` : `${this.failed} of ${all} could not ${verb}.`
    if (this.failed === all && distinct.size === 1) {
      const [code] = distinct
      throw new PayopsError(msg, code)
    }
    throw new PartialError(msg)
  }
}

export async function runEach<T extends Record<string, unknown>>(ids: string[], call: (id: string) => Promise<ApiResponse<T>>): Promise<BulkReport> {
  const results: ItemResult[] = []
  const codes: ExitCodeValue[] = []
  for (const id of ids) {
    try {
      const res = await call(id)
      const partial = res.status === 207
      results.push({id, result: partial ? 'partial' : 'ok', move: res.data, warning: res.warning ?? undefined, message: res.warning ?? ''})
      codes.push(partial ? ExitCode.PARTIAL : ExitCode.OK)
    } catch (err) {
      if (!(err instanceof PayopsError)) throw err
      const message = err instanceof ApiError ? err.describe() : err.message
      results.push({id, result: 'error', message, error: err.toJSON()})
      codes.push(err.exitCode)
    }
  }
  return new BulkReport(results, codes)
}
