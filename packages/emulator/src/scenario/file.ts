/**
 * A scenario file (YAML, or JSON, which YAML reads as well) read and checked whole, with every
 * problem as one line `FILE:LINE:COL: field: message`: syntax errors where the parser stopped,
 * and each problem {@link checkScenario} finds at the field it names (an unknown field at its
 * key, a missing one at the entry that lacks it). A webhook's signing secret never sits in the
 * file: `secret_env` names the environment variable it is read from.
 */
import {readFileSync, statSync} from 'node:fs'
import {LineCounter, isMap, isNode, isScalar, parseDocument, type Document} from 'yaml'
import {UsageError} from '../lib/errors.js'
import {plural} from '../lib/text.js'
import {checkScenario, pathText, type PathKey, type Scenario, type ScenarioIssue} from './schema.js'

/** Larger scenario files are refused (a scenario is a hand-written world, not a data dump). */
export const MAX_SCENARIO_BYTES = 10 * 1024 * 1024

export type ScenarioRead = {ok: true; scenario: Scenario} | {ok: false; problems: string[]}

/** Where a path points in the document: the key of the field when it exists, else the nearest entry that does. */
function locate(doc: Document, counter: LineCounter, path: readonly PathKey[]): {line: number; col: number} {
  for (let n = path.length; n >= 0; n--) {
    const parent = n > 0 ? doc.getIn(path.slice(0, n - 1), true) : undefined
    const last = path[n - 1]
    if (n > 0 && isMap(parent)) {
      const pair = parent.items.find((p) => isScalar(p.key) && String(p.key.value) === String(last))
      if (pair && isNode(pair.key) && pair.key.range) return counter.linePos(pair.key.range[0])
    }
    const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true)
    if (isNode(node) && node.range) return counter.linePos(node.range[0])
  }
  return {line: 1, col: 1}
}

/** Fills each webhook's `secret` from the variable its `secret_env` names; a secret written in the file is a problem. */
function resolveSecrets(value: unknown, env: Record<string, string | undefined>): ScenarioIssue[] {
  const issues: ScenarioIssue[] = []
  const hooks = (value as {webhooks?: unknown}).webhooks
  if (!Array.isArray(hooks)) return issues
  hooks.forEach((h: unknown, i) => {
    if (!h || typeof h !== 'object') return
    const hook = h as {secret?: unknown; secret_env?: unknown}
    if (hook.secret !== undefined) {
      issues.push({path: ['webhooks', i, 'secret'], message: 'a signing secret does not belong in a file: put it in an environment variable and name it with secret_env'})
      return
    }
    if (typeof hook.secret_env !== 'string') return
    const secret = env[hook.secret_env]
    if (secret === undefined || secret === '') issues.push({path: ['webhooks', i, 'secret_env'], message: `environment variable ${hook.secret_env} is not set`})
    else {
      hook.secret = secret
      delete hook.secret_env
    }
  })
  return issues
}

/** Reads `text` (the contents of `file`) as a scenario: the scenario, or every problem as one line. */
export function readScenarioText(text: string, file: string, env: Record<string, string | undefined> = {}): ScenarioRead {
  const counter = new LineCounter()
  const doc = parseDocument(text, {lineCounter: counter, prettyErrors: false, uniqueKeys: true})
  if (doc.errors.length > 0) {
    return {ok: false, problems: doc.errors.map((e) => `${file}:${e.linePos?.[0].line ?? 1}:${e.linePos?.[0].col ?? 1}: ${e.message.split('\n')[0]}`)}
  }
  let value: unknown
  try {
    value = doc.toJS({maxAliasCount: 100})
  } catch (err) {
    return {ok: false, problems: [`${file}:1:1: ${(err as Error).message.split('\n')[0]}`]}
  }
  const secretIssues = value && typeof value === 'object' ? resolveSecrets(value, env) : []
  const checked = checkScenario(value)
  const issues = [...secretIssues, ...(checked.ok ? [] : checked.issues)]
  if (issues.length === 0 && checked.ok) return {ok: true, scenario: checked.scenario}
  const lines = issues.map((i) => ({at: locate(doc, counter, i.path), i}))
  lines.sort((a, b) => a.at.line - b.at.line || a.at.col - b.at.col)
  return {ok: false, problems: lines.map(({at, i}) => `${file}:${at.line}:${at.col}: ${i.path.length ? `${pathText(i.path)}: ` : ''}${i.message}`)}
}

/** The one line that refuses a scenario file with `count` problems (each reported on a line of its own). */
export const refusalOf = (file: string, count: number): string => `${plural(count, 'problem')} in scenario file ${file}; nothing was loaded.`

/**
 * Reads and checks a scenario file; on problems, each goes to `note` as one line and a
 * {@link UsageError} (exit 2) says how many: nothing is loaded.
 */
export function readScenarioFile(file: string, env: Record<string, string | undefined>, note: (line: string) => void): Scenario {
  let text: string
  try {
    if (statSync(file).size > MAX_SCENARIO_BYTES) throw new UsageError(`Scenario file ${file} is larger than ${MAX_SCENARIO_BYTES / 1024 / 1024} MB.`)
    text = readFileSync(file, 'utf8')
  } catch (err) {
    if (err instanceof UsageError) throw err
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(`Cannot read scenario file ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? (err as Error).message)}.`)
  }
  const r = readScenarioText(text, file, env)
  if (r.ok) return r.scenario
  for (const line of r.problems) note(line)
  throw new UsageError(refusalOf(file, r.problems.length))
}
