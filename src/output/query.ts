/** `--query`: a JMESPath expression applied to the JSON result, with a hint for the usual slip. */
import {loadJmespath} from '../interop.js'
import {UsageError} from '../errors.js'

/** The expression applied to a value (a usage error, with a hint, if it is not valid JMESPath). */
export async function applyQuery(query: string, value: unknown): Promise<unknown> {
  const jmespath = await loadJmespath()
  try {
    return jmespath.search(value as never, query)
  } catch (err) {
    throw new UsageError(`--query "${query}" is not a valid JMESPath expression: ${(err as Error).message}${queryHint(query, err as Error)}`)
  }
}

/** The expression checked now (a usage error if invalid), applied later row by row. */
export async function compileQuery(expression: string): Promise<(value: unknown) => unknown> {
  const jmespath = await loadJmespath()
  try {
    jmespath.compile(expression)
  } catch (err) {
    throw new UsageError(`--query "${expression}" is not a valid JMESPath expression: ${(err as Error).message}`)
  }
  return (value) => jmespath.search(value as never, expression)
}

/**
 * What to write instead, for the usual slip: a bare word between backticks (`US`), which JMESPath
 * reads as a JSON value and so refuses; a string is written 'US'. The corrected expression is
 * shown in double quotes, as a shell takes it (no backticks inside double quotes: a shell runs them).
 */
export function queryHint(query: string, err: Error): string {
  const literal = /`([^`"\d[{\-][^`]*)`/.exec(query)
  if (!literal || !/JSON/i.test(err.message) || ['true', 'false', 'null'].includes(literal[1].trim())) return ''
  const fixed = query.split(literal[0]).join(`'${literal[1]}'`)
  const paste = /[`"$\\!]/.test(fixed) ? '' : `: --query "${fixed}"`
  return `. Between backticks JMESPath takes a JSON value; a string is written '${literal[1]}'${paste}`
}
