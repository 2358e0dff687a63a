/**
 * `audit list`, `audit verify` and `audit export`: what each does with its options, on the trail
 * the command context hands over (the store of the config dir).
 */
import {closeSync, openSync, writeSync} from 'node:fs'
import type {CommandContext} from '../context/index.js'
import {PayopsError, UsageError} from '../errors.js'
import type {Column} from '../output/index.js'
import type {AuditRecord} from './records.js'

export const AUDIT_COLUMNS: Column[] = [
  {key: 'seq'},
  {key: 'time'},
  {key: 'profile'},
  {key: 'mode', get: (r) => String(r.mode).toUpperCase()},
  {key: 'kind'},
  {key: 'method'},
  {key: 'path'},
  {key: 'status'},
  // created, replayed, advanced, conflict: what the request did (a replay moved nothing).
  {key: 'outcome'},
  {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}},
  {key: 'from', names: true},
  {key: 'to', names: true},
  {key: 'resource_id', header: 'resource'},
  {key: 'error_code', header: 'error'},
]
/** Every field a record may hold (an intent lacks the outcome's): each one a --columns name. */
export const AUDIT_KNOWN: Column[] = [
  ...AUDIT_COLUMNS,
  ...['resource_status', 'idempotency_key', 'request_id', 'amount_in_minor_units', 'currency_code', 'attempts', 'key_id', 'operator', 'os_user', 'host', 'maker', 'details', 'op', 'pid', 'hash', 'prev'].map((key) => ({key})),
]

export interface ListOptions {
  /** ms: only records at or after. */
  since?: number
  profile?: string
  maxItems?: number
  /** The team store's records instead of this machine's trail. */
  team?: boolean
}

/** `audit list --team`: the team store's intents and outcomes (see team.ts). */
async function listTeam(opts: ListOptions, ctx: CommandContext): Promise<void> {
  if (opts.profile) throw new UsageError('--profile filters this machine\'s trail; the team store\'s records name the database role that made them (the actor column).')
  const {teamTrail, TEAM_COLUMNS, TEAM_KNOWN} = await import('./team.js')
  const {rows, location} = await teamTrail(ctx)
  let shown = opts.since === undefined ? rows : rows.filter((r) => Date.parse(r.at) >= opts.since!)
  if (opts.maxItems) shown = shown.slice(-opts.maxItems)
  await ctx.out.list(shown as unknown as Record<string, unknown>[], TEAM_COLUMNS, TEAM_KNOWN)
  if (!ctx.out.machine) ctx.out.note(`The team store ${location}: its records are kept by the database (no member can change or delete one), not by a hash chain; this machine's own trail is \`payops audit list\`.`)
}

export async function runList(opts: ListOptions, ctx: CommandContext): Promise<void> {
  if (opts.team) return listTeam(opts, ctx)
  const trail = await ctx.auditTrail()
  let records: AuditRecord[] = trail.records()
  const total = records.length
  if (opts.since !== undefined) records = records.filter((r) => Date.parse(r.time) >= opts.since!)
  if (opts.profile) records = records.filter((r) => r.profile === opts.profile)
  if (opts.maxItems) records = records.slice(-opts.maxItems)
  await ctx.out.list(records as unknown as Record<string, unknown>[], AUDIT_COLUMNS, AUDIT_KNOWN)
  const head = trail.head()
  if (head.state === 'ok') {
    if (ctx.out.machine) ctx.out.note(JSON.stringify({head: head.head}))
    else if (head.head.seq > 0) ctx.out.note(`Head: record ${head.head.seq}, hash ${head.head.hash} (keep it elsewhere; check later with \`payops audit verify --expect-head HASH\`).`)
  } else if (head.state === 'garbled' || total > 0) {
    ctx.out.warn(`the trail's head in ${trail.location} ${head.state === 'garbled' ? head.detail : 'is missing'}: run \`payops audit verify\`.`)
  }
}

export interface VerifyCommandOptions {
  /** An exported file to check instead of the store. */
  file?: string
  expectHead?: string
}

export async function runVerify(opts: VerifyCommandOptions, ctx: CommandContext): Promise<void> {
  const expect = opts.expectHead
  if (expect !== undefined && !/^[0-9a-f]{12,64}$/i.test(expect)) throw new UsageError('--expect-head takes the head\'s hash, or a prefix of it of at least 12 hex digits.')
  const trail = await ctx.auditTrail()
  const file = opts.file ?? trail.location
  const result = opts.file === undefined ? trail.verify({expectHead: expect}) : readable(opts.file, () => trail.verifyFile(opts.file!, {expectHead: expect}))
  if (ctx.out.machine) await ctx.out.value({file, ...result})
  if (!result.ok) throw new PayopsError(result.message ?? `${file}: ${result.reason}.`, 1)
  const n = result.records
  const head = result.head && result.head.seq > 0 ? ` Head: record ${result.head.seq}, hash ${result.head.hash}${expect ? ' (matches --expect-head)' : ''}.` : ''
  ctx.out.note(`${file}: intact, ${n} record${n === 1 ? '' : 's'}.${head}`)
  const back = result.backwards
  if (back) {
    const b = back.first[0]
    const more = back.count > 1 ? ` (and ${back.count - 1} more)` : ''
    const where = opts.file === undefined ? '' : ` (line ${b.line})`
    ctx.out.warn(`times go backwards: record ${b.seq}${where} is dated ${b.time}, earlier than ${b.after} of a record before it${more}: a clock was set back while they were written. Daily caps count such records by their place in the trail.`)
  }
}

/** `fn`, with a file that cannot be read (absent, a directory, unreadable) said in one line (exit 2). */
function readable<T>(file: string, fn: () => T): T {
  try {
    return fn()
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new UsageError(`${file} does not exist.`)
    if (code) throw new UsageError(`Cannot read ${file}: ${code}.`)
    throw err
  }
}

export interface ExportOptions {
  format: 'jsonl'
  /** The file to write (created, never over another); stdout without. */
  out?: string
}

export async function runExport(opts: ExportOptions, ctx: CommandContext): Promise<void> {
  const trail = await ctx.auditTrail()
  if (opts.out === undefined) {
    const pieces: string[] = []
    trail.export((text) => pieces.push(text))
    for (const piece of pieces) if (!ctx.io.stdout.write(piece)) await new Promise((r) => ctx.io.stdout.once('drain', r))
    return
  }
  let fd: number
  try {
    // Created exclusively (never over a file or through a link planted at the name), 0600.
    fd = openSync(opts.out, 'wx', 0o600)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(code === 'EEXIST' ? `${opts.out} already exists; audit export never writes over a file.` : `Cannot create ${opts.out}: ${code ?? (err as Error).message}.`)
  }
  let head
  try {
    head = trail.export((text) => void writeSync(fd, text))
  } finally {
    closeSync(fd)
  }
  ctx.out.note(`Exported ${head.seq} record${head.seq === 1 ? '' : 's'} to ${opts.out}; head: record ${head.seq}, hash ${head.hash}. Check it with \`payops audit verify ${opts.out}\`.`)
}
