/** Classification of any error a command meets: its exit code, one line, and the JSON error object. */
import {ApiError, ExitCode, PayopsError, type ExitCodeValue} from './errors.js'

/** Maps any error to its exit code, a one-line message and the JSON error object. */
export function classify(err: unknown): {code: ExitCodeValue; line: string; json: Record<string, unknown>} {
  if (err instanceof ApiError) return {code: err.exitCode, line: err.describe(), json: err.toJSON()}
  if (err instanceof PayopsError) return {code: err.exitCode, line: err.message, json: err.toJSON()}
  const e = err as Error & {oclif?: {exit?: number}}
  if (e && typeof e === 'object' && e.oclif && typeof e.oclif.exit === 'number') {
    const parts = String(e.message ?? 'invalid usage')
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s && !/^See more help with/.test(s))
    const line = `${parts.join(' ').replace(/:\s+/g, ': ').replace(/\s{2,}/g, ' ')} (see --help)`
    const code = (e.oclif.exit === 2 || e.oclif.exit === 1 ? ExitCode.USAGE : e.oclif.exit) as ExitCodeValue
    return {code, line, json: {type: 'UsageError', message: line, exit_code: code}}
  }
  const message = e instanceof Error ? e.message : String(err)
  return {
    code: ExitCode.UNEXPECTED,
    line: `Unexpected error: ${message.split('\n')[0]} (run with --debug for details)`,
    json: {type: 'UnexpectedError', message, exit_code: ExitCode.UNEXPECTED},
  }
}
