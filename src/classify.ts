/** Classification of any error a command meets: its exit code, one line, and the JSON error object. */
import {ApiError, ExitCode, PayopsError, type ExitCodeValue} from './errors.js'
import {flagSuggestion} from './flags.js'

/** Maps any error to its exit code, a one-line message and the JSON error object. */
export function classify(err: unknown): {code: ExitCodeValue; line: string; json: Record<string, unknown>} {
  if (err instanceof ApiError) return {code: err.exitCode, line: err.describe(), json: err.toJSON()}
  if (err instanceof PayopsError) return {code: err.exitCode, line: err.message, json: err.toJSON()}
  const e = err as Error & {oclif?: {exit?: number}}
  if (e && typeof e === 'object' && e.oclif && typeof e.oclif.exit === 'number') {
    const parts = usageMessage(e)
      .split('\n')
      .map((s) => s.trim())
      .filter((s) => s && !/^See more help with/.test(s))
    const hint = flagSuggestion(e)
    const text = `${parts.join(' ').replace(/:\s+/g, ': ').replace(/\s{2,}/g, ' ')}${hint ? `. ${hint}` : ''}`
    const line = text.endsWith('.') ? `${text} See --help.` : `${text} (see --help)`
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

/**
 * oclif's parse errors as a sentence: a missing argument named as the usage line shows it (`ID`,
 * with what it is), a flag value it could not parse named by its flag. Other messages pass as they are.
 */
function usageMessage(e: Error & {args?: Array<{name?: string; description?: string}>}): string {
  const message = String(e.message ?? 'invalid usage')
  if (/^Missing \d+ required args?/.test(message) && Array.isArray(e.args) && e.args.length) {
    const named = e.args.map((a) => `${String(a.name ?? 'argument').toUpperCase()}${a.description ? ` (${a.description})` : ''}`)
    return `Missing ${e.args.length === 1 ? 'the argument' : `${e.args.length} arguments:`} ${named.join(', ')}.`
  }
  const parsing = /^Parsing (--\S+)\s*\n\s*([\s\S]*?)(?:\nSee more help with --help)?$/.exec(message)
  if (parsing) return `${parsing[1]}: ${parsing[2].charAt(0).toLowerCase()}${parsing[2].slice(1).replace(/\s+/g, ' ').trim()}`
  return message
}
