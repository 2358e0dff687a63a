/**
 * Where completion finds values: only files of the config dir, never the network.
 *
 * - Profiles: the profile file (names, the key's mode and which one is active; never a key).
 * - Moves awaiting approval: the audit trail, as `payops approvals` reads it (pendingMovesOf), and
 *   with a team store the store's queue as the last command here read it (team-queue.json),
 *   scoped to the key the completed line would use (madeWith: `-p`/`--api-key` on the line, then
 *   PAYOPS_PROFILE / PAYOPS_API_KEY, then the active profile), with amount and names.
 * - Subaccounts and treasury accounts: the book of names (controls.sqlite; its newest 5,000
 *   entries), then the ids the audit trail shows moves and transfers between. Pending moves are
 *   labelled with the names of their two accounts, looked up by id.
 * - Webhook endpoints: those this machine created with the key in use (the audit trail's
 *   `POST /api/webhooks`, `webhooks rotate-secret` included) and has not deleted since. An endpoint
 *   made elsewhere is not known here; `payops webhooks list` asks the service.
 *
 * Only the end of the audit trail is read (its store's last {@link TAIL_RECORDS} outcomes, read
 * only), so that a trail of a million imported rows completes as fast as a new one: a move created
 * further back than that is still listed by `payops approvals`.
 */
import {join} from 'node:path'
import type {AuditRecord} from '../audit/index.js'
import {readTail} from '../files.js'
import {recentRecords} from '../audit/tail.js'
import {keyMode, readProfiles, type ProfileFile} from '../config/index.js'
import {readNamesOf, readRecentNames, type NamedId} from '../config/names.js'
import {resolveContext} from '../config/resolve.js'
import {formatMoney} from '../money.js'
import {PATHS} from '../api/paths.js'
import {madeWith, pendingMovesOf} from '../movements/pending.js'
import {mergeMoves, readTeamQueue} from '../movements/team-queue.js'
import type {Candidate, LineContext, Source, ValueKind} from './complete.js'

/** How much of an old JSON-lines trail's end completion reads (some 3,000 records, 1,500 requests). */
export const TAIL_BYTES = 1 << 20
/** How many of the store's newest outcomes completion reads. */
export const TAIL_RECORDS = 750
/** The JSON-lines trail of earlier versions, until a command imports it into the store. */
const AUDIT_FILE = 'audit.jsonl'
const WEBHOOKS = PATHS.webhooks
const TRANSFERS = PATHS.transferCreate

/** The complete lines among the last `bytes` of a file (none when it is absent). */
export function tailLines(file: string, bytes = TAIL_BYTES): string[] {
  const tail = readTail(file, bytes)
  if (!tail) return []
  const lines = tail.text.split('\n')
  // A window that starts inside a line drops that line's end.
  if (tail.cut) lines.shift()
  return lines.filter(Boolean)
}

/** The outcome records among the lines (other lines, and lines that are not JSON, are skipped). */
function outcomes(lines: string[]): AuditRecord[] {
  const out: AuditRecord[] = []
  for (const line of lines) {
    // Only outcomes say what happened; the cheap test spares parsing every intent.
    if (!line.includes('"outcome"')) continue
    try {
      const r = JSON.parse(line) as AuditRecord
      if (r && r.kind === 'outcome') out.push(r)
    } catch {
      // A damaged line is `audit verify`'s business, not completion's.
    }
  }
  return out
}

const ok = (r: AuditRecord) => typeof r.status === 'number' && r.status >= 200 && r.status < 300
const segment = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
const day = (time: string | undefined) => (time ? time.slice(0, 16).replace('T', ' ') : '')

/** The values of this config dir, each kind read once and only when asked for. */
export class LocalSource implements Source {
  private profileFile?: ProfileFile | null
  private records?: AuditRecord[]
  private book?: {byId: Map<string, NamedId>; newestFirst: NamedId[]}

  constructor(
    private readonly configDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  private profilesFile(): ProfileFile | null {
    if (this.profileFile === undefined) {
      try {
        this.profileFile = readProfiles(this.configDir)
      } catch {
        // A profile file payops would refuse (a symlink, not JSON) offers nothing.
        this.profileFile = null
      }
    }
    return this.profileFile
  }

  /** The key the line would use (undefined when none resolves). */
  private keyOf(line: LineContext): string | undefined {
    try {
      return resolveContext({profile: line.profile, 'api-key': line.apiKey}, this.env, this.profilesFile() ?? {profiles: {}}).apiKey
    } catch {
      return undefined
    }
  }

  /** The audit trail's outcomes made with the key the line would use. */
  private mine(line: LineContext): AuditRecord[] {
    // The store's newest outcomes, after those of an old trail not imported yet (the next command imports it).
    this.records ??= [...outcomes(tailLines(join(this.configDir, AUDIT_FILE))), ...recentRecords(this.configDir, 'outcome', TAIL_RECORDS)]
    const file = this.profilesFile() ?? {profiles: {}}
    let resolved
    try {
      resolved = resolveContext({profile: line.profile, 'api-key': line.apiKey}, this.env, file)
    } catch {
      // A profile named on the line that does not exist: no key, so nothing of any key.
      return []
    }
    return this.records.filter(madeWith(resolved.apiKey, resolved.profileName ?? null, resolved.mode))
  }

  /** The newest part of the book of names (readRecentNames): a TAB never parses 50,000 names. */
  private names(): {get(id: string): string | undefined; ofKind(kind: string): NamedId[]} {
    if (!this.book) {
      const entries = readRecentNames(this.configDir)
      this.book = {byId: new Map(entries.map((e) => [e.id, e])), newestFirst: entries.reverse()}
    }
    const {byId, newestFirst} = this.book
    return {get: (id) => byId.get(id)?.name, ofKind: (kind) => newestFirst.filter((e) => e.kind === kind && byId.get(e.id) === e)}
  }

  values(kind: ValueKind, line: LineContext): Candidate[] {
    switch (kind) {
      case 'profile':
        return this.profiles()
      case 'move':
        return this.moves(line)
      case 'subaccount':
        return this.accounts('subaccount', line)
      case 'treasury-account':
        return this.accounts('treasury-account', line)
      case 'webhook':
        return this.webhooks(line)
      default:
        return []
    }
  }

  private profiles(): Candidate[] {
    const file = this.profilesFile()
    if (!file) return []
    return Object.entries(file.profiles).map(([name, p]) => {
      const mode = keyMode(p?.api_key)
      const what = mode === 'live' ? 'LIVE key' : mode === 'test' ? 'test key' : 'no key'
      return {value: name, description: file.active === name ? `${what}, active` : what}
    })
  }

  private moves(line: LineContext): Candidate[] {
    // With a team store, its queue as the last command here read it (team-queue.ts).
    const pending = mergeMoves(pendingMovesOf(this.mine(line)), readTeamQueue(this.configDir, this.keyOf(line)))
    // Only the names of the accounts these moves are between, whatever their age in the book.
    const book = readNamesOf(this.configDir, pending.flatMap((m) => [m.from, m.to]).filter((id): id is string => Boolean(id)))
    const name = (id: string | null) => (id ? (book.get(id)?.name ?? `${id.slice(0, 8)}…`) : '?')
    return pending
      .reverse()
      .map((m) => ({
        value: m.id,
        description: () => `${formatMoney(m.amount_in_minor_units, m.currency_code) || 'amount unknown'}  ${name(m.from)} → ${name(m.to)}`,
      }))
  }

  private accounts(kind: 'subaccount' | 'treasury-account', line: LineContext): Candidate[] {
    const book = this.names()
    const seen = new Set<string>()
    const out: Candidate[] = []
    const add = (id: string | null | undefined, description: string) => {
      if (!id || seen.has(id)) return
      seen.add(id)
      out.push({value: id, description})
    }
    for (const {id, name} of book.ofKind(kind)) add(id, name)
    // Ids the trail shows money moving between, newest first, named where the book knows them.
    const isMove = (r: AuditRecord) => r.method === 'POST' && r.path === PATHS.moveCreate
    const isTransfer = (r: AuditRecord) => r.method === 'POST' && r.path === TRANSFERS
    const records = this.mine(line).filter((r) => ok(r) && (kind === 'subaccount' ? isMove(r) : isTransfer(r)))
    for (let i = records.length - 1; i >= 0; i--) {
      for (const id of [records[i].from, records[i].to]) if (id) add(id, book.get(id) ?? (kind === 'subaccount' ? 'subaccount' : 'treasury account'))
    }
    return out
  }

  private webhooks(line: LineContext): Candidate[] {
    const live = new Map<string, string>()
    for (const r of this.mine(line)) {
      if (r.method === 'POST' && r.path === WEBHOOKS && ok(r) && r.resource_id) live.set(r.resource_id, `created ${day(r.time)}`)
      // Deleted, or found gone (404).
      else if (r.method === 'DELETE' && r.path.startsWith(`${WEBHOOKS}/`) && (ok(r) || r.status === 404)) live.delete(segment(r.path.slice(WEBHOOKS.length + 1)))
    }
    return [...live].reverse().map(([value, description]) => ({value, description}))
  }
}
