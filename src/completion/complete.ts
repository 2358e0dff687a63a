/**
 * The completer: given the words of a command line up to the cursor (the last one the word being
 * typed, possibly empty), what may come next, each with a short description, and a directive for
 * the shell. Pure: the grammar comes from the spec (spec.ts), the values from a Source
 * (sources.ts reads the config dir). The protocol is gh's (`__complete`): one candidate a line,
 * `VALUE<TAB>DESCRIPTION`, then `:DIRECTIVE`.
 */
import {SETTING_KEYS} from '../config/settings.js'
import {escapeControls} from '../output/safe.js'
import type {CommandSpec, FlagSpec, Spec} from './spec.js'

/** What a value of an argument or flag is. */
export type ValueKind = 'move' | 'subaccount' | 'treasury-account' | 'profile' | 'webhook' | 'setting' | 'file'

export interface Candidate {
  value: string
  /** Text beside the value; a function is called only for the values offered. */
  description?: string | (() => string | undefined)
}

/** At most this many values are offered (the first, newest first): a longer list helps no one at a prompt. */
export const MAX_OFFERED = 200

/** What on the line chooses the key (and so whose moves and webhooks are offered). */
export interface LineContext {
  profile?: string
  apiKey?: string
}

export interface Source {
  values(kind: ValueKind, line: LineContext): Candidate[]
}

/** Bits of the directive line, as gh's scripts read them. */
export const DIRECTIVE = {
  /** Something went wrong: offer nothing. */
  error: 1,
  /** Add no space after the value. */
  noSpace: 2,
  /** No file names when nothing is offered. */
  noFiles: 4,
} as const

export interface Completion {
  candidates: Candidate[]
  directive: number
}

/** Positional arguments: `command arg` -> what its values are. */
export const ARG_VALUES: Record<string, ValueKind> = {
  'moves:approve ids': 'move',
  'moves:cancel id': 'move',
  'approvals:request id': 'move',
  'approvals:show id': 'move',
  'subaccounts:get id': 'subaccount',
  'subaccounts:activity id': 'subaccount',
  'treasury:accounts:update-label id': 'treasury-account',
  'treasury:transactions:list account': 'treasury-account',
  'treasury:transactions:get account': 'treasury-account',
  'treasury:simulate-credit account': 'treasury-account',
  'profiles:use name': 'profile',
  'profiles:show name': 'profile',
  'profiles:remove name': 'profile',
  'profiles:set name': 'profile',
  'profiles:unset name': 'profile',
  'profiles:set key': 'setting',
  'profiles:unset key': 'setting',
  'webhooks:get id': 'webhook',
  'webhooks:update id': 'webhook',
  'webhooks:delete id': 'webhook',
  'webhooks:enable id': 'webhook',
  'webhooks:disable id': 'webhook',
  'webhooks:rotate-secret id': 'webhook',
  'moves:import file': 'file',
  'approvals:review file': 'file',
}

/** The only arguments whose values repeat (`moves approve ID ID...`). */
const REPEATS = new Set(['moves:approve ids'])

/** Flags: `command --flag` (or `* --flag`, on every command) -> what its values are. */
export const FLAG_VALUES: Record<string, ValueKind> = {
  '* --profile': 'profile',
  'moves:create --from': 'subaccount',
  'moves:create --to': 'subaccount',
  'treasury:simulate-credit --subaccount': 'subaccount',
  'transfers:create --from': 'treasury-account',
  'transfers:create --to': 'treasury-account',
  'transfers:estimate --from': 'treasury-account',
  'transfers:estimate --to': 'treasury-account',
  'transfers:rails --from': 'treasury-account',
  'transfers:rails --to': 'treasury-account',
  'transfers:list --account': 'treasury-account',
  'api --input': 'file',
  'moves:import --journal': 'file',
  'approvals:request --out': 'file',
  'emulator:start --state': 'file',
  'emulator:start --import-state': 'file',
  'webhooks:listen --secret-file': 'file',
  'webhooks:listen --tls-cert': 'file',
  'webhooks:listen --tls-key': 'file',
  'webhooks:verify --secret-file': 'file',
  'webhooks:verify --payload-file': 'file',
  'webhooks:trigger --secret-file': 'file',
}


/** What a value offered to a shell may hold: nothing a shell would read as syntax. */
const SAFE_VALUE = /^[A-Za-z0-9_][A-Za-z0-9._:@+=,/-]*$/
/** Descriptions are cut here (a terminal line holds the value beside it). */
const MAX_DESCRIPTION = 72

function describe(text: string | undefined): string | undefined {
  if (!text) return undefined
  // Text from outside (a name) shown, never obeyed; a tab or newline (escaped too) would break the protocol.
  const safe = escapeControls(text).trim()
  return safe.length > MAX_DESCRIPTION ? `${safe.slice(0, MAX_DESCRIPTION - 1)}…` : safe
}

function flagByLong(cmd: CommandSpec | undefined, globals: FlagSpec[], name: string): {flag: FlagSpec; negated: boolean} | undefined {
  const flags = cmd?.flags ?? globals
  const exact = flags.find((f) => f.name === name || f.aliases.includes(name))
  if (exact) return {flag: exact, negated: false}
  if (name.startsWith('no-')) {
    const neg = flags.find((f) => f.allowNo && f.name === name.slice(3))
    if (neg) return {flag: neg, negated: true}
  }
  return undefined
}

const flagByChar = (cmd: CommandSpec | undefined, globals: FlagSpec[], ch: string) => (cmd?.flags ?? globals).find((f) => f.char === ch)

/** The global flags (accepted before the command too), as a command that talks to the API has them. */
function globalFlags(spec: Spec): FlagSpec[] {
  return spec.commands.get('subaccounts:get')?.flags.filter((f) => f.global) ?? []
}

export class Completer {
  private readonly globals: FlagSpec[]

  constructor(
    private readonly spec: Spec,
    private readonly source: Source,
  ) {
    this.globals = globalFlags(spec)
  }

  /** `words`: what follows `payops` on the line, up to the cursor; the last is the word being typed. */
  complete(words: string[]): Completion {
    const cur = words.length ? words[words.length - 1] : ''
    const before = words.slice(0, -1)
    const line: LineContext = {}
    let i = 0
    // Global flags before the command (`payops -p prod moves approve ...`).
    let pending: FlagSpec | undefined
    for (; i < before.length; i++) {
      const w = before[i]
      if (pending) {
        this.note(line, pending, w)
        pending = undefined
        continue
      }
      if (!w.startsWith('-') || w === '-') break
      pending = this.readFlag(undefined, w, line)
    }
    if (pending) return this.flagValues(undefined, pending, cur, '', line)

    // The command's words: each one a topic or a command below the last.
    let id = ''
    for (; i < before.length; i++) {
      const next = id ? `${id}:${before[i]}` : before[i]
      if (!this.spec.commands.has(next) && !this.spec.topics.has(next)) break
      id = next
    }
    const cmd = this.spec.commands.get(id)
    const rest = before.slice(i)
    if (!cmd) {
      // Nothing but the command's words so far: the next word is a topic or command (or a global flag).
      if (rest.length) return {candidates: [], directive: DIRECTIVE.noFiles}
      if (cur.startsWith('-')) return this.flags(undefined, cur, new Set())
      return this.subcommands(id, cur)
    }

    const positionals: string[] = []
    const used = new Set<string>()
    let dashes = false
    for (const w of rest) {
      if (pending) {
        this.note(line, pending, w)
        pending = undefined
        continue
      }
      if (dashes || w === '-' || !w.startsWith('-')) {
        positionals.push(w)
        continue
      }
      if (w === '--') {
        dashes = true
        continue
      }
      pending = this.readFlag(cmd, w, line, used)
    }
    if (pending) return this.flagValues(cmd, pending, cur, '', line)
    if (!dashes && cur.startsWith('--') && cur.includes('=')) {
      const eq = cur.indexOf('=')
      const found = flagByLong(cmd, this.globals, cur.slice(2, eq))
      if (!found || !found.flag.takesValue) return {candidates: [], directive: DIRECTIVE.noFiles}
      return this.flagValues(cmd, found.flag, cur.slice(eq + 1), cur.slice(0, eq + 1), line)
    }
    if (!dashes && cur.startsWith('-') && cur !== '-') return this.flags(cmd, cur, used)

    // A command that is also a topic (`approvals`) offers its subcommands before any argument.
    const sub = positionals.length === 0 && !dashes ? this.subcommands(id, cur).candidates : []
    const arg = this.argValues(cmd, positionals, cur, line)
    return {candidates: [...sub, ...arg.candidates], directive: arg.directive}
  }

  /** Reads one flag word; returns the flag when its value is the next word. */
  private readFlag(cmd: CommandSpec | undefined, w: string, line: LineContext, used?: Set<string>): FlagSpec | undefined {
    if (w.startsWith('--')) {
      const eq = w.indexOf('=')
      const found = flagByLong(cmd, this.globals, eq === -1 ? w.slice(2) : w.slice(2, eq))
      if (!found) return undefined
      used?.add(found.flag.name)
      if (!found.flag.takesValue || found.negated) return undefined
      if (eq !== -1) {
        this.note(line, found.flag, w.slice(eq + 1))
        return undefined
      }
      return found.flag
    }
    const flag = flagByChar(cmd, this.globals, w[1])
    if (!flag) return undefined
    used?.add(flag.name)
    if (!flag.takesValue) return undefined
    if (w.length > 2) {
      this.note(line, flag, w.slice(w[2] === '=' ? 3 : 2))
      return undefined
    }
    return flag
  }

  /** The flags on the line that choose the key. */
  private note(line: LineContext, flag: FlagSpec, value: string): void {
    if (flag.name === 'profile') line.profile = value
    else if (flag.name === 'api-key') line.apiKey = value
  }

  private subcommands(id: string, cur: string): Completion {
    const prefix = id ? `${id}:` : ''
    const seen = new Map<string, string | undefined>()
    const add = (full: string, description: string | undefined) => {
      if (!full.startsWith(prefix)) return
      const word = full.slice(prefix.length)
      if (!word || word.includes(':') || !word.startsWith(cur)) return
      if (!seen.has(word) || (!seen.get(word) && description)) seen.set(word, description)
    }
    for (const c of this.spec.commands.values()) if (!c.hidden) add(c.id, c.summary)
    for (const [t, description] of this.spec.topics) add(t, description || undefined)
    const candidates = [...seen].sort(([a], [b]) => a.localeCompare(b)).map(([value, d]) => ({value, description: describe(d)}))
    return {candidates, directive: DIRECTIVE.noFiles}
  }

  private flags(cmd: CommandSpec | undefined, cur: string, used: Set<string>): Completion {
    const candidates: Candidate[] = []
    for (const f of cmd?.flags ?? this.globals) {
      if (used.has(f.name) && !f.multiple) continue
      const forms = [`--${f.name}`, ...(f.allowNo ? [`--no-${f.name}`] : [])]
      for (const form of forms) if (form.startsWith(cur)) candidates.push({value: form, description: describe(f.summary)})
    }
    candidates.sort((a, b) => a.value.localeCompare(b.value))
    return {candidates, directive: DIRECTIVE.noFiles}
  }

  private flagValues(cmd: CommandSpec | undefined, flag: FlagSpec, cur: string, prefix: string, line: LineContext): Completion {
    const kind = FLAG_VALUES[`${cmd?.id ?? ''} --${flag.name}`] ?? FLAG_VALUES[`* --${flag.name}`]
    if (kind === 'file') return {candidates: [], directive: 0}
    const values = flag.options ? flag.options.map((value) => ({value})) : kind ? this.values(kind, line) : []
    return this.offer(values, cur, prefix)
  }

  private argValues(cmd: CommandSpec, positionals: string[], cur: string, line: LineContext): Completion {
    const n = positionals.length
    let arg = cmd.args[n]
    if (!arg && cmd.variadic && cmd.args.length && REPEATS.has(`${cmd.id} ${cmd.args.at(-1)!.name}`)) arg = cmd.args.at(-1)!
    // `profiles set NAME allowed-destinations ID...`
    if (cmd.id === 'profiles:set' && n >= 2 && positionals[1] === 'allowed-destinations') return this.offer(this.values('subaccount', line), cur, '')
    if (!arg) return {candidates: [], directive: DIRECTIVE.noFiles}
    const kind = ARG_VALUES[`${cmd.id} ${arg.name}`]
    if (kind === 'file') return {candidates: [], directive: 0}
    // Ids already on the line are not offered again.
    const values = (arg.options ? arg.options.map((value) => ({value})) : kind ? this.values(kind, line) : []).filter((c) => !positionals.includes(c.value))
    return this.offer(values, cur, '')
  }

  private values(kind: ValueKind, line: LineContext): Candidate[] {
    if (kind === 'setting') return SETTING_KEYS.map((value) => ({value}))
    return this.source.values(kind, line)
  }

  /** The values that start with what is typed, each offered once, safe for a shell. */
  private offer(values: Candidate[], cur: string, prefix: string): Completion {
    const seen = new Set<string>()
    const candidates: Candidate[] = []
    for (const c of values) {
      if (candidates.length >= MAX_OFFERED) break
      if (!SAFE_VALUE.test(c.value) || !c.value.startsWith(cur) || seen.has(c.value)) continue
      seen.add(c.value)
      candidates.push({value: prefix + c.value, description: describe(typeof c.description === 'function' ? c.description() : c.description)})
    }
    return {candidates, directive: DIRECTIVE.noFiles}
  }
}

/** The protocol's text: one `VALUE<TAB>DESCRIPTION` line per candidate, then `:DIRECTIVE`. */
export function formatCompletion(c: Completion): string {
  const lines = c.candidates.map((x) => (typeof x.description === 'string' && x.description ? `${x.value}\t${x.description}` : x.value))
  return `${[...lines, `:${c.directive}`].join('\n')}\n`
}
