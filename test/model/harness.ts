/**
 * The model-based test's world: operator actions as fast-check commands, run in-process against
 * the in-process emulator, each checked against the emulator's own ledger (./ledger.ts) right
 * after it ran:
 *
 * (i)   the money each outcome line, summary and sentence says moved now is the ledger's change;
 * (ii)  nothing is created twice (one move per key, one transfer per request, one credit);
 * (iii) exit 0 only when everything asked happened, 6 when part did, an error exit (1-5, 8) only
 *       with no change made by that request, 7 only with a message naming a command that finds out;
 * (iv)  the audit trail's outcome records (`payops audit list -o json`) agree with the ledger.
 *
 * Faults are armed through the control API (`/_emulator/faults`: 5xx or a reset before or after
 * the handler committed; `/_emulator/fail-next-settlement`: a 207) just before the action and
 * cleared after it; between actions the bank may settle or fail a transfer (`BankAdvancesTransfer`).
 * A violation throws an Error listing every broken claim with the command's output and the steps
 * so far, so that fast-check shrinks to the shortest sequence that breaks one.
 *
 * The claims are read from the machine output (`-o json`: the `{"outcome":…}` line, the resource,
 * an import's summary) and, for half of the single commands, from the sentence of `-o table`.
 */
import {appendFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import fc from 'fast-check'
import {fakeClock, importDone, importRecords, runCli, startCli, tempDir, type Emulator, type RunResult} from '../support/index.js'
import {anyChange, describeChange, diffLedger, readLedger, type Ledger, type LedgerChange} from './ledger.js'

// ---------------------------------------------------------------------------------------------
// The real world and the model

export interface World {
  emu: Emulator
  dir: {path: string; cleanup(): void}
  /** The seeded test entity's three subaccounts. */
  subs: string[]
  /** The simulated USD main account (simulated credits) and a second USD account (transfers). */
  main: string
  reserve: string
  /** Audit records already judged (their highest seq). */
  auditSeq: number
  /** Each step's one-line account, for a failure message. */
  trace: string[]
  /** A prefix that keeps this run's keys apart from every other run's. */
  run: string
  /** Turns the emulator's drift on again (a fault reset turns it back to how the emulator started). */
  driftOn?: (emu: Emulator) => Promise<void>
  /** The emulator serves the least generous reading of the spec (`--strict`): lists echo no key, a 202 names no transfer. */
  strict: boolean
  /** A team store bound to every command (PAYOPS_TEAM_DATABASE_URL, a member's role), and its records already judged. */
  team?: TeamWorld
}

/** The team store of a world: its URL (a member's), how to read it as its owner, and how far it was judged. */
export interface TeamWorld {
  url: string
  query<R extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>
  intentSeq: number
  outcomeSeq: number
}

export interface MoveAsk {
  from: number
  to: number
  amount: number
  auto: boolean
  meta?: Record<string, string>
}

export interface ImportRow {
  from: number
  to: number
  amount: number
  auto: boolean
}

export interface Model {
  /** Keys the operator chose for moves, with what the first request with each asked. */
  moveKeys: Array<{key: string} & MoveAsk>
  /** Moves, transfers the ledger gained during the run (ids). */
  moves: string[]
  transfers: string[]
  transferKeys: Array<{key: string; from: number; to: number; amount: number; auto: boolean}>
  creditKeys: Array<{key: string; amount: number; sub: number | null}>
  files: Array<{name: string; rows: ImportRow[]}>
  counter: number
}

export const newModel = (): Model => ({moveKeys: [], moves: [], transfers: [], transferKeys: [], creditKeys: [], files: [], counter: 0})

let runs = 0
/** How many steps ran, and how many sequences (for the test's own report). */
export const stats = {steps: 0, sequences: 0, ms: {} as Record<string, number>}

/** A fresh world: the shared emulator reset (drift on when asked), a config dir of its own. */
export async function newWorld(emu: Emulator, drift: false | ((emu: Emulator) => Promise<void>) = false, team?: TeamWorld): Promise<World> {
  stats.sequences++
  await emu.reset()
  await emu.control('POST', '/_emulator/fail-next-settlement', {count: 0})
  if (drift) await drift(emu)
  const e = emu.store!.entityByRole('test')!
  const usd = e.treasuryAccounts.items.filter((a) => a.currency_code === 'USD')
  const main = usd.find((a) => a.simulated)!
  const reserve = usd.find((a) => a.id !== main.id)!
  return {
    emu,
    dir: tempDir('payops-test-model-'),
    subs: e.subaccounts.items.map((s) => s.id),
    main: main.id,
    reserve: reserve.id,
    auditSeq: 0,
    trace: [],
    run: `r${++runs}-${Date.now().toString(36)}`,
    driftOn: drift || undefined,
    strict: (await emu.control('GET', '/_emulator/faults')).data?.strict === true,
    team,
  }
}

// ---------------------------------------------------------------------------------------------
// Faults

export type FaultKind = '500' | '503' | 'reset'
export interface Fault {
  kind: FaultKind
  phase: 'before' | 'after'
}

const faultArb: fc.Arbitrary<Fault | null> = fc.option(fc.record({kind: fc.constantFrom<FaultKind>('500', '503', 'reset'), phase: fc.constantFrom<'before' | 'after'>('before', 'after')}), {freq: 2})
const settleArb = fc.oneof({weight: 3, arbitrary: fc.constant(0)}, {weight: 1, arbitrary: fc.integer({min: 1, max: 2})})

const faultText = (f: Fault | null, settle = 0) => `${f ? ` fault=${f.kind}/${f.phase}` : ''}${settle ? ` settlement-failures=${settle}` : ''}`

async function arm(w: World, fault: Fault | null, methods: string[], settle = 0): Promise<void> {
  if (fault) await w.emu.control('POST', '/_emulator/faults', {queue: [fault], methods})
  if (settle) await w.emu.control('POST', '/_emulator/fail-next-settlement', {count: settle})
}

async function disarm(w: World): Promise<void> {
  await w.emu.control('DELETE', '/_emulator/faults')
  await w.emu.control('POST', '/_emulator/fail-next-settlement', {count: 0})
  if (w.driftOn) await w.driftOn(w.emu)
}

// ---------------------------------------------------------------------------------------------
// Running a command and judging it

const env = (w: World) => ({PAYOPS_BASE_URL: w.emu.baseUrl, PAYOPS_API_KEY: w.emu.keys.test, ...(w.team ? {PAYOPS_TEAM_DATABASE_URL: w.team.url} : {})})

/**
 * A command run in-process. Its clock is fake (a retry's backoff passes at once), started at the
 * real time so that the skew payops reads from the server's Date header stays small.
 */
export function cli(w: World, args: string[]): Promise<RunResult> {
  return runCli(args, {configDir: w.dir.path, env: env(w), clock: fakeClock(Date.now())})
}

interface AuditRecord {
  kind: 'intent' | 'outcome'
  seq: number
  method: string
  path: string
  idempotency_key?: string | null
  status?: number | null
  resource_id?: string | null
  resource_status?: string | null
  outcome?: string | null
  amount_in_minor_units?: number | null
  from?: string | null
  to?: string | null
}

export interface Judged {
  w: World
  label: string
  r: RunResult
  before: Ledger
  after: Ledger
  change: LedgerChange
  audit: AuditRecord[]
  newAudit: AuditRecord[]
  problems: string[]
}

const money = (minor: number) => (minor / 100).toFixed(2)
/** `1,234.56` -> 123456. */
const minorOf = (s: string) => Math.round(Number(s.replace(/,/g, '')) * 100)

function jsonOr<T>(s: string): T | undefined {
  try {
    return JSON.parse(s) as T
  } catch {
    return undefined
  }
}

interface OutcomeLine {
  kind: string
  id: string
  idempotency_key: string | null
  status: string | null
}

/** The `{"outcome":…}` lines on stderr. */
function outcomes(r: RunResult): OutcomeLine[] {
  return r.stderr
    .split('\n')
    .filter((l) => l.startsWith('{"outcome"'))
    .map((l) => (JSON.parse(l) as {outcome: OutcomeLine}).outcome)
}

/**
 * Runs one action: reads the ledger, arms the fault, runs, clears the fault, reads the ledger and
 * the audit trail, applies the checks every action shares, then `judge`; throws on any problem.
 */
async function step(w: World, label: string, act: () => Promise<RunResult>, judge: (j: Judged) => void, setup?: () => Promise<void>): Promise<Judged> {
  const started = Date.now()
  const before = readLedger(w.emu)
  let r: RunResult
  try {
    if (setup) await setup()
    r = await act()
  } catch (err) {
    throw new Error(`${label}: ${(err as Error).message}\n\nsteps so far:\n${w.trace.join('\n')}`, {cause: err})
  } finally {
    await disarm(w)
  }
  const after = readLedger(w.emu)
  const change = diffLedger(before, after)
  const auditRun = await cli(w, ['audit', 'list', '-o', 'json'])
  const audit = (auditRun.code === 0 ? (jsonOr<AuditRecord[]>(auditRun.stdout) ?? []) : []) as AuditRecord[]
  const newAudit = audit.filter((a) => a.seq > w.auditSeq)
  w.auditSeq = Math.max(w.auditSeq, ...audit.map((a) => a.seq))
  stats.steps++
  const kind = label.split('(')[0]
  stats.ms[kind] = (stats.ms[kind] ?? 0) + (Date.now() - started)
  const j: Judged = {w, label, r, before, after, change, audit, newAudit, problems: []}
  if (auditRun.code !== 0) j.problems.push(`payops audit list failed (exit ${auditRun.code}): ${auditRun.stderr}`)
  common(j)
  if (w.team) teamAgrees(j, await newTeamRecords(w.team))
  judge(j)
  w.trace.push(`${label} -> exit ${r.code}; ledger: ${describeChange(change)}`)
  if (LOG && j.problems.length) appendFileSync(LOG, JSON.stringify({label, code: r.code, problems: j.problems, trace: w.trace}) + '\n')
  const counted = ONLY ? j.problems.filter((p) => ONLY.test(p)) : j.problems
  if (counted.length) {
    throw new Error(
      [
        `${label}: exit ${r.code}`,
        ...counted.map((p) => `  ✗ ${p}`),
        `ledger change: ${describeChange(change)}`,
        `stdout: ${r.stdout.trim().slice(0, 1500)}`,
        `stderr: ${r.stderr.trim().slice(0, 1500)}`,
        `steps so far:`,
        ...w.trace.map((t) => `  ${t}`),
      ].join('\n'),
    )
  }
  return j
}

/**
 * Exploring (never in `npm test`): PAYOPS_MODEL_ONLY=REGEX fails a step only on the problems that
 * match, so that fast-check shrinks to the smallest sequence showing that one; PAYOPS_MODEL_LOG=FILE
 * appends every problem found, as a JSON line, to FILE.
 */
const ONLY = process.env.PAYOPS_MODEL_ONLY ? new RegExp(process.env.PAYOPS_MODEL_ONLY) : undefined
const LOG = process.env.PAYOPS_MODEL_LOG

const ERROR_EXITS = new Set([1, 2, 3, 4, 5, 8])

/** (iii) for error exits and 7, (iv), and the ledger's own consistency. */
function common(j: Judged): void {
  const {r, change, problems} = j
  if (![0, 1, 2, 3, 4, 5, 6, 7, 8].includes(r.code)) problems.push(`exit ${r.code} is not a documented outcome of this command`)
  if (ERROR_EXITS.has(r.code) && anyChange(change)) {
    problems.push(`exit ${r.code} says the request was not carried out, but the ledger changed: ${describeChange(change)}`)
  }
  if (r.code === 7 && !/payops [a-z]+( [a-z-]+)?/.test(r.stderr)) problems.push('exit 7 (outcome unknown) names no command that finds out')
  if (change.creditedToSubaccounts < 0) problems.push(`subaccount totals lost ${-change.creditedToSubaccounts} that no move took`)
  auditAgrees(j)
}

interface TeamIntent {
  seq: string
  kind: string
  amount: string
  status: string
}
interface TeamOutcome {
  seq: string
  intent_seq: string
  status: string
  detail: {id?: string | null}
}

/** The team store's intents and outcomes recorded since the last step. */
async function newTeamRecords(t: TeamWorld): Promise<{intents: TeamIntent[]; outcomes: TeamOutcome[]}> {
  // `amount` is what an intent counts towards the day (0 for a move held for approval); what it asks is in its detail.
  const intents = await t.query<TeamIntent & Record<string, unknown>>(
    "SELECT seq, kind, coalesce((detail->>'amount_in_minor_units')::bigint, amount) AS amount, status FROM payops.intents WHERE seq > $1 ORDER BY seq",
    [t.intentSeq],
  )
  const outcomes = await t.query<TeamOutcome & Record<string, unknown>>('SELECT seq, intent_seq, status, detail FROM payops.outcomes WHERE seq > $1 ORDER BY seq', [t.outcomeSeq])
  t.intentSeq = Math.max(t.intentSeq, ...intents.map((i) => Number(i.seq)))
  t.outcomeSeq = Math.max(t.outcomeSeq, ...outcomes.map((o) => Number(o.seq)))
  return {intents, outcomes}
}

/**
 * (v) With a team store: nothing moved without the store's say. Every move, transfer and simulated
 * credit the ledger gained in this step has an intent the store allowed in this step, of its kind
 * and amount (the database decided it before it was sent), and every outcome the store recorded
 * with an id names a move, transfer or bank line the ledger holds.
 */
function teamAgrees(j: Judged, team: {intents: TeamIntent[]; outcomes: TeamOutcome[]}): void {
  const {after, change, problems} = j
  const allowed = new Map<string, number>()
  for (const i of team.intents) if (i.status === 'allowed') allowed.set(`${i.kind} ${i.amount}`, (allowed.get(`${i.kind} ${i.amount}`) ?? 0) + 1)
  const created = [
    ...change.newMoves.map((m) => `move.create ${m.amount}`),
    ...change.newTransfers.map((t) => `transfer.create ${t.amount}`),
    ...change.credits.map((c) => `credit.simulate ${c.amount}`),
  ]
  for (const c of created) {
    const n = allowed.get(c) ?? 0
    if (n === 0) problems.push(`the ledger gained a ${c.replace(' ', ' of ')} with no intent the team store allowed in this step (it recorded: ${team.intents.map((i) => `${i.kind} ${i.amount} ${i.status}`).join(', ') || 'none'})`)
    else allowed.set(c, n - 1)
  }
  for (const o of team.outcomes) {
    const id = o.detail?.id
    if (id && !after.moves.has(id) && !after.transfers.has(id) && !after.bank.has(id)) problems.push(`the team store records outcome ${o.status} of ${id}, which the ledger does not hold`)
  }
}

const MOVE_PATH = /^\/api\/subaccounts\/move(\/|$)/
const TRANSFER_PATH = /^\/api\/treasury\/account-transfers(\/|$)/
const CREDIT_PATH = /\/simulate-inbound-credit$/

/** (iv) The audit trail's outcome records of this step agree with the ledger, and it knows everything the ledger gained. */
function auditAgrees(j: Judged): void {
  const {after, change, newAudit, audit, problems} = j
  let settledByAudit = 0
  for (const rec of newAudit) {
    if (rec.kind !== 'outcome' || !rec.resource_id) continue
    const id = rec.resource_id
    if (MOVE_PATH.test(rec.path)) {
      const m = after.moves.get(id)
      if (!m) {
        problems.push(`audit seq ${rec.seq} records move ${id} (${rec.outcome}), which the ledger does not hold`)
        continue
      }
      if (rec.amount_in_minor_units != null && rec.amount_in_minor_units !== m.amount) problems.push(`audit seq ${rec.seq} records move ${id} as ${rec.amount_in_minor_units}; the ledger holds ${m.amount}`)
      if (rec.method === 'POST' && rec.path === '/api/subaccounts/move' && ((rec.from && rec.from !== m.from) || (rec.to && rec.to !== m.to))) {
        problems.push(`audit seq ${rec.seq} records move ${id} as ${rec.from} -> ${rec.to}; the ledger holds ${m.from} -> ${m.to}`)
      }
      if (rec.resource_status && rec.resource_status.toLowerCase() !== m.status) problems.push(`audit seq ${rec.seq} records move ${id} as ${rec.resource_status}; the ledger holds ${m.status}`)
      const was = j.before.moves.get(id)?.status
      if ((rec.outcome === 'created' || rec.outcome === 'advanced') && rec.resource_status?.toLowerCase() === 'settled' && was !== 'settled') settledByAudit += m.amount
    } else if (TRANSFER_PATH.test(rec.path)) {
      const t = after.transfers.get(id)
      if (!t) problems.push(`audit seq ${rec.seq} records account transfer ${id}, which the ledger does not hold`)
      else if (rec.amount_in_minor_units != null && rec.amount_in_minor_units !== t.amount) problems.push(`audit seq ${rec.seq} records transfer ${id} as ${rec.amount_in_minor_units}; the ledger holds ${t.amount}`)
    } else if (CREDIT_PATH.test(rec.path)) {
      const l = after.bank.get(id)
      if (!l) problems.push(`audit seq ${rec.seq} records simulated credit ${id}, which the ledger does not hold`)
      else if (rec.amount_in_minor_units != null && rec.amount_in_minor_units !== l.amount) problems.push(`audit seq ${rec.seq} records credit ${id} as ${rec.amount_in_minor_units}; the ledger holds ${l.amount}`)
    }
  }
  // An unknown outcome (exit 7) claims nothing about money: the audit trail cannot know either.
  if (j.r.code !== 7 && settledByAudit !== change.moved) problems.push(`the audit trail's outcome records of this step say ${money(settledByAudit)} settled; the ledger moved ${money(change.moved)}`)
  const knows = (key: string | null, id: string) => audit.some((a) => a.resource_id === id || (key !== null && a.idempotency_key === key))
  for (const m of change.newMoves) if (!knows(m.key, m.id)) problems.push(`the ledger gained move ${m.id} (${m.amount}), which the audit trail does not record`)
  // A transfer carries its request's key in client_metadata (the server keeps it, though --strict does not list it).
  const keyOf = (t: {key: string | null; metadata: Record<string, unknown> | null}) => t.key ?? (typeof t.metadata?.payops_idempotency_key === 'string' ? t.metadata.payops_idempotency_key : null)
  for (const t of change.newTransfers) if (!knows(keyOf(t), t.id)) problems.push(`the ledger gained account transfer ${t.id} (${t.amount}), which the audit trail does not record`)
  for (const l of change.credits) if (!knows(l.reference, l.id)) problems.push(`the ledger gained simulated credit ${l.id} (${l.amount}), which the audit trail does not record`)
}

/** What a table-mode sentence about a move says moved now (undefined: no sentence found). */
function sentenceMoved(stderr: string, ledgerAmountOf: (id: string) => number | undefined): {moved: number; id?: string; kind?: string} | undefined {
  let m = /Replayed: Idempotency-Key \S+ already names move (\S+) .*nothing (new )?was moved now/.exec(stderr)
  if (m) return {moved: 0, id: m[1], kind: 'replayed'}
  m = /Created move (\S+): ([\d,]+\.\d\d) USD[^\n]*?, settled\./.exec(stderr)
  if (m) return {moved: minorOf(m[2]), id: m[1].replace(/:$/, ''), kind: 'created'}
  m = /names move (\S+) \(([\d,]+\.\d\d) USD[^\n]*this run settled it now/.exec(stderr)
  if (m) return {moved: minorOf(m[2]), id: m[1], kind: 'advanced'}
  m = /Created move (\S+): [^\n]*(awaiting approval|approved but not settled)/.exec(stderr)
  if (m) return {moved: 0, id: m[1].replace(/:$/, ''), kind: 'created'}
  m = /names move (\S+) [^\n]*(this run approved it now, but it is not settled|moved it on to)/.exec(stderr)
  if (m) return {moved: 0, id: m[1], kind: 'advanced'}
  m = /Approved move (\S+) \((.*)\): settled now/.exec(stderr)
  if (m) {
    const amount = /([\d,]+\.\d\d) USD/.exec(m[2])
    return {moved: amount ? minorOf(amount[1]) : (ledgerAmountOf(m[1]) ?? Number.NaN), id: m[1], kind: 'advanced'}
  }
  m = /Approved move (\S+) .*(settlement failed|not settled)/.exec(stderr)
  if (m) return {moved: 0, id: m[1], kind: 'advanced'}
  m = /Canceled move (\S+)/.exec(stderr)
  if (m) return {moved: 0, id: m[1], kind: 'advanced'}
  // An approve or cancel whose state was already reached (an earlier request's lost answer, or another's).
  m = /Move (\S+) (?:\([^)]*\) )?is already (settled|canceled)[^\n]*Nothing was (moved|changed) now/.exec(stderr)
  if (m) return {moved: 0, id: m[1]}
  return undefined
}

/**
 * (ii) What the outcome's kind says about the resource agrees with the ledger: `created` names one
 * this step made (or one whose earlier outcome this machine never learned), `advanced` one this
 * step changed, `replayed` one that existed before and did not change.
 */
export function kindAgrees(j: Judged, noun: 'move' | 'account transfer', id: string, kind: string): void {
  const [before, after] = noun === 'move' ? [j.before.moves, j.after.moves] : [j.before.transfers, j.after.transfers]
  const was = before.get(id)
  const now = after.get(id)
  if (!now) return
  const changed = was !== undefined && was.status !== now.status
  const learnedBefore = j.audit.some((a) => a.kind === 'outcome' && a.resource_id === id && !j.newAudit.includes(a))
  if (kind === 'created' && was !== undefined && learnedBefore) j.problems.push(`(ii) the ${noun} ${id} is said to be created by this run; it existed before (${was.status}) and this machine had recorded it`)
  if (kind === 'advanced' && !changed) j.problems.push(`(i) this run is said to have moved ${noun} ${id} on; the ledger shows it ${was ? `${was.status} before and after` : 'new'}`)
  if (kind === 'replayed' && (was === undefined || changed)) j.problems.push(`(i) ${noun} ${id} is said to be replayed with nothing done now; the ledger shows it ${was ? `${was.status} -> ${now.status}` : 'made now'}`)
}

/**
 * What a move command claims moved now and which move it names: from the outcome line and stdout
 * (machine output) or from the sentence (table output).
 */
function moveClaim(j: Judged, output: 'json' | 'table', amountOf: (stdout: unknown) => number | undefined): {moved: number; id?: string; status?: string | null; kind?: string} {
  const {r, after, problems} = j
  const lines = outcomes(r)
  if (lines.length > 1) problems.push(`${lines.length} outcome lines for one request`)
  if (output === 'json') {
    const o = lines[0]
    if (!o) {
      if (r.code === 0 || r.code === 6) problems.push(`exit ${r.code} but no {"outcome":…} line on stderr`)
      return {moved: 0}
    }
    const body = jsonOr<unknown>(r.stdout)
    // (iv) The audit trail's last outcome record for this resource says what the outcome line says.
    const rec = j.newAudit.filter((a) => a.kind === 'outcome' && a.resource_id === o.id).at(-1)
    if (!rec) problems.push(`(iv) the outcome line names ${o.id}, but no audit outcome record of this step does`)
    else if (rec.outcome && rec.outcome !== o.kind) problems.push(`(iv) the outcome line says ${o.kind}; the audit trail records ${rec.outcome}`)
    const settledNow = (o.kind === 'created' || o.kind === 'advanced') && o.status === 'settled'
    const amount = amountOf(body) ?? after.moves.get(o.id)?.amount ?? Number.NaN
    kindAgrees(j, 'move', o.id, o.kind)
    return {moved: settledNow ? amount : 0, id: o.id, status: o.status, kind: o.kind}
  }
  if (lines.length) problems.push('an outcome line on stderr in table output')
  const s = sentenceMoved(r.stderr, (id) => after.moves.get(id)?.amount)
  if (!s) {
    if (r.code === 0 || r.code === 6) problems.push(`exit ${r.code} but no sentence says what happened to the move`)
    return {moved: 0}
  }
  if (Number.isNaN(s.moved)) problems.push('the sentence says a move settled now but names no amount')
  if (s.id && s.kind) kindAgrees(j, 'move', s.id, s.kind)
  return {moved: s.moved, id: s.id, kind: s.kind}
}

function sameMeta(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  return JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b).sort())
}

// ---------------------------------------------------------------------------------------------
// Commands

type Cmd = fc.AsyncCommand<Model, World, false>
type Output = 'json' | 'table'
const outputArb = fc.constantFrom<Output>('json', 'table')

export type KeyMode = 'none' | 'fresh' | 'same' | 'amount' | 'dest' | 'meta'

export interface CreateMoveSpec {
  ask: MoveAsk
  key: KeyMode
  /** Which earlier key a reuse takes (modulo their count). */
  pick: number
  decimal: boolean
  via: 'cli' | 'api'
  output: Output
  fault: Fault | null
  settle: number
}

/** `moves create` (or `payops api POST /api/subaccounts/move`) with or without a key, the key new or reused. */
export class CreateMove implements Cmd {
  constructor(readonly s: CreateMoveSpec) {}
  check(m: Readonly<Model>): boolean {
    return this.s.key === 'none' || this.s.key === 'fresh' || m.moveKeys.length > 0
  }
  /** What this request asks, and under which key. */
  private resolve(m: Model, w: World): {ask: MoveAsk; key: string | null} {
    const s = this.s
    if (s.key === 'none') return {ask: s.ask, key: null}
    if (s.key === 'fresh') {
      const key = `${w.run}-move-${++m.counter}`
      m.moveKeys.push({key, ...s.ask})
      return {ask: s.ask, key}
    }
    const prior = m.moveKeys[s.pick % m.moveKeys.length]
    const base: MoveAsk = {from: prior.from, to: prior.to, amount: prior.amount, auto: prior.auto, meta: prior.meta}
    if (s.key === 'amount') return {ask: {...base, amount: base.amount + 1 + (s.ask.amount % 50)}, key: prior.key}
    if (s.key === 'dest') return {ask: {...base, to: [0, 1, 2].find((i) => i !== base.from && i !== base.to)!}, key: prior.key}
    if (s.key === 'meta') return {ask: {...base, meta: {note: base.meta?.note === 'b' ? 'a' : 'b'}}, key: prior.key}
    return {ask: base, key: prior.key}
  }
  async run(m: Model, w: World): Promise<void> {
    const s = this.s
    const {ask, key} = this.resolve(m, w)
    const [from, to] = [w.subs[ask.from], w.subs[ask.to]]
    let args: string[]
    let output = s.output
    if (s.via === 'api') {
      output = 'json'
      const body: Record<string, unknown> = {from_subaccount_id: from, to_subaccount_id: to, amount_in_minor_units: ask.amount, auto_approve: ask.auto}
      if (ask.meta) body.client_metadata = ask.meta
      const file = join(w.dir.path, `body-${++m.counter}.json`)
      writeFileSync(file, JSON.stringify(body))
      args = ['api', 'POST', '/api/subaccounts/move', '--input', file, '-o', 'json', ...(key ? ['-H', `Idempotency-Key: ${key}`] : [])]
    } else {
      args = ['moves', 'create', '--from', from, '--to', to, ...(s.decimal ? ['--amount', money(ask.amount)] : ['--amount-minor', String(ask.amount)])]
      if (!ask.auto) args.push('--no-auto-approve')
      for (const [k, v] of Object.entries(ask.meta ?? {})) args.push('--metadata', `${k}=${v}`)
      if (key) args.push('--idempotency-key', key)
      args.push('-o', output)
    }
    const label = `${this.toString()} [${args.slice(0, 2).join(' ')} ${money(ask.amount)} s${ask.from}->s${ask.to}${ask.auto ? '' : ' no-auto'}${ask.meta ? ` meta=${JSON.stringify(ask.meta)}` : ''}${key ? ` key=${key}` : ''}]`
    const j = await step(w, label, () => cli(w, args), (j) => {
      const {r, change, after, problems} = j
      if (r.code === 2 && (s.key === 'none' || s.key === 'fresh' || s.key === 'same')) problems.push(`usage error for a request the model built to be valid: ${r.stderr.trim().slice(0, 300)}`)
      const claim = moveClaim(j, output, (b) => {
        const body = (s.via === 'api' ? (b as {data?: unknown})?.data : b) as {amount_in_minor_units?: number} | undefined
        return typeof body?.amount_in_minor_units === 'number' ? body.amount_in_minor_units : undefined
      })
      if (r.code === 7 && s.fault) problems.push('(iii) exit 7 after a single fault: a move create is re-sent with its Idempotency-Key, so its outcome can be known')
      // (i) money
      if (r.code !== 7 && claim.moved !== change.moved) problems.push(`(i) the command says ${money(claim.moved)} moved now; the ledger moved ${money(change.moved)}`)
      // (ii) one move per request
      if (change.newMoves.length > 1) problems.push(`(ii) one request created ${change.newMoves.length} moves`)
      if (key) {
        const bound = [...after.moves.values()].filter((mv) => mv.key === key)
        if (bound.length > 1) problems.push(`(ii) ${bound.length} moves carry the key ${key}`)
      }
      // (iii) exit 0: everything asked happened, to the move the claim names
      if (r.code === 0 || r.code === 6) {
        const mv = claim.id ? after.moves.get(claim.id) : undefined
        if (!mv) problems.push(`(iii) exit ${r.code} names move ${claim.id}, which the ledger does not hold`)
        else {
          const diffs: string[] = []
          if (mv.amount !== ask.amount) diffs.push(`amount ${mv.amount} (asked ${ask.amount})`)
          if (mv.from !== from || mv.to !== to) diffs.push(`route s${w.subs.indexOf(mv.from)}->s${w.subs.indexOf(mv.to)} (asked s${ask.from}->s${ask.to})`)
          if (!sameMeta(ask.meta, mv.metadata)) diffs.push(`metadata ${JSON.stringify(mv.metadata)} (asked ${JSON.stringify(ask.meta ?? {})})`)
          if (key && mv.key !== key) diffs.push(`key ${mv.key} (asked ${key})`)
          if (diffs.length) problems.push(`(iii) exit ${r.code}, but the move it names is not the one asked for: ${diffs.join(', ')}`)
          if (r.code === 0 && ask.auto && mv.status !== 'settled') problems.push(`(iii) exit 0 for an auto-approved move that the ledger holds as ${mv.status}`)
          if (r.code === 0 && !ask.auto && mv.status !== 'created' && mv.status !== 'settled') problems.push(`(iii) exit 0 for a move the ledger holds as ${mv.status}`)
          if (r.code === 6 && mv.status === 'settled') problems.push('(iii) exit 6 (partial) for a move the ledger holds as settled')
          if (claim.status && claim.status !== mv.status) problems.push(`the outcome line says ${claim.status}; the ledger holds ${mv.status}`)
        }
      }
    }, () => arm(w, s.fault, ['POST'], s.settle))
    remember(m, j)
  }
  toString(): string {
    const s = this.s
    return `CreateMove(${JSON.stringify(s)})`
  }
}

function remember(m: Model, j: Judged): void {
  for (const mv of j.change.newMoves) m.moves.push(mv.id)
  for (const t of j.change.newTransfers) m.transfers.push(t.id)
}

export interface PickSpec {
  pick: number
  output: Output
  fault: Fault | null
  settle: number
}

/** `moves approve ID` of a move the run made (whatever its state). */
export class ApproveMove implements Cmd {
  constructor(readonly s: PickSpec) {}
  check(m: Readonly<Model>): boolean {
    return m.moves.length > 0
  }
  async run(m: Model, w: World): Promise<void> {
    const id = m.moves[this.s.pick % m.moves.length]
    const output = this.s.output
    const j = await step(w, `${this.toString()} [moves approve ${id.slice(0, 8)}]`, () => cli(w, ['moves', 'approve', id, '-o', output]), (j) => {
      const {r, change, before, after, problems} = j
      const claim = moveClaim(j, output, (b) => {
        const body = (Array.isArray(b) ? b[0] : b) as {amount_in_minor_units?: number} | undefined
        return typeof body?.amount_in_minor_units === 'number' ? body.amount_in_minor_units : undefined
      })
      if (r.code !== 7 && claim.moved !== change.moved) problems.push(`(i) the command says ${money(claim.moved)} moved now; the ledger moved ${money(change.moved)}`)
      const was = before.moves.get(id)!.status
      const now = after.moves.get(id)!.status
      // Exit 0: the move is settled, by this approve or (nothing said to move now) before it.
      if (r.code === 0 && !(now === 'settled' && (was === 'created' || was === 'settled'))) problems.push(`(iii) exit 0 for an approve that took the move ${was} -> ${now}`)
      if (r.code === 6 && !(was === 'created' && now === 'approved')) problems.push(`(iii) exit 6 for an approve that took the move ${was} -> ${now}`)
    }, () => arm(w, this.s.fault, ['POST'], this.s.settle))
    remember(m, j)
  }
  toString(): string {
    return `ApproveMove(${JSON.stringify(this.s)})`
  }
}

/** `moves cancel ID` of a move the run made. */
export class CancelMove implements Cmd {
  constructor(readonly s: Omit<PickSpec, 'settle'>) {}
  check(m: Readonly<Model>): boolean {
    return m.moves.length > 0
  }
  async run(m: Model, w: World): Promise<void> {
    const id = m.moves[this.s.pick % m.moves.length]
    const output = this.s.output
    await step(w, `${this.toString()} [moves cancel ${id.slice(0, 8)}]`, () => cli(w, ['moves', 'cancel', id, '-o', output]), (j) => {
      const {r, change, before, after, problems} = j
      const claim = moveClaim(j, output, () => undefined)
      if (claim.moved !== 0 || change.moved !== 0) problems.push(`(i) a cancel moved money: claimed ${money(claim.moved)}, ledger ${money(change.moved)}`)
      const was = before.moves.get(id)!.status
      const now = after.moves.get(id)!.status
      if (r.code === 0 && now !== 'canceled') problems.push(`(iii) exit 0 for a cancel that left the move ${now}`)
      if (r.code === 0 && was !== 'created' && was !== 'canceled') problems.push(`(iii) exit 0 for a cancel of a move that was ${was}`)
    }, () => arm(w, this.s.fault, ['DELETE']))
  }
  toString(): string {
    return `CancelMove(${JSON.stringify(this.s)})`
  }
}

export type Mutation = 'rerun' | 'append' | 'duplicate' | 'edit'

export interface ImportSpec {
  file: number
  mutation: Mutation
  rows: ImportRow[]
  /** Which row an edit changes (modulo the row count). */
  at: number
  /** Ctrl-C once this many rows (modulo the count, at least one) are done; null: never. */
  interrupt: number | null
  /** Two imports of the file at once (instead of a Ctrl-C). */
  twice?: boolean
  fault: Fault | null
  settle: number
}

function csvOf(w: World, rows: ImportRow[]): string {
  return ['from,to,amount_in_minor_units,auto_approve', ...rows.map((r) => `${w.subs[r.from]},${w.subs[r.to]},${r.amount},${r.auto}`)].join('\n') + '\n'
}

/** `moves import FILE` after the file gained rows (new or a duplicate), had one edited, or as it was; maybe stopped by Ctrl-C. */
export class ImportMoves implements Cmd {
  constructor(readonly s: ImportSpec) {}
  check(): boolean {
    return true
  }
  async run(m: Model, w: World): Promise<void> {
    const s = this.s
    let f = m.files[s.file]
    if (!f) {
      f = {name: join(w.dir.path, `moves-${m.files.length}-${s.file}.csv`), rows: [...s.rows]}
      m.files[s.file] = f
    } else if (s.mutation === 'append') f.rows.push(...s.rows)
    else if (s.mutation === 'duplicate') f.rows.push({...f.rows[s.at % f.rows.length]})
    const sent = f.rows.map((r) => ({...r}))
    if (s.mutation === 'edit' && m.files[s.file] && readFileExists(f.name)) {
      const i = s.at % sent.length
      sent[i] = {...sent[i], amount: sent[i].amount + 1}
    }
    writeFileSync(f.name, csvOf(w, sent))
    const file = f.name
    const args = ['moves', 'import', file, '--yes', '--concurrency', '1', '-o', 'json']
    const label = `${this.toString()} [moves import${s.twice ? ' (twice at once)' : ''} ${f.name.split('/').pop()} rows=${sent.map((r) => `${r.amount}${r.auto ? '' : '(no-auto)'} s${r.from}->s${r.to}`).join(' ')}]`
    /** The other run of two at once, judged beside the one the checks take as the command. */
    let other: RunResult | undefined
    const act = async (): Promise<RunResult> => {
      if (s.twice) {
        const both = await Promise.all([cli(w, args), cli(w, args)])
        // The run that sent (exit 0 or 6) is the command; the other found the rows done, or was locked out (exit 2).
        both.sort((x, y) => Number(x.code === 2) - Number(y.code === 2))
        other = both[1]
        return both[0]
      }
      if (s.interrupt === null) return cli(w, args)
      await w.emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 15, methods: ['POST']})
      const running = startCli(args, {configDir: w.dir.path, env: env(w), clock: fakeClock(Date.now())})
      let finished = false
      void running.done.then(
        () => (finished = true),
        () => (finished = true),
      )
      const at = 1 + (s.interrupt % sent.length)
      while (!finished && importDone(file) < at) await new Promise((r) => setTimeout(r, 3))
      if (!finished) running.interrupt()
      return running.done
    }
    const j = await step(w, label, act, (j) => {
      const {r, change, after, problems} = j
      const summary = jsonOr<{rows: number; created: number; partial: number; failed: number; not_sent: number; interrupted: boolean; total_this_run: Record<string, number>}>(r.stdout)
      if ((r.code === 0 || r.code === 6) && !summary) problems.push(`exit ${r.code} without a JSON summary on stdout`)
      let claimed = summary?.total_this_run?.USD ?? 0
      if (other) {
        const second = jsonOr<{total_this_run?: Record<string, number>}>(other.stdout)
        if (![0, 2, 6].includes(other.code)) problems.push(`the second of two imports at once exits ${other.code}: ${other.stderr.trim().slice(0, 300)}`)
        if ((other.code === 0 || other.code === 6) && !second) problems.push(`the second of two imports at once exits ${other.code} without a JSON summary`)
        claimed += second?.total_this_run?.USD ?? 0
      }
      if (claimed !== change.moved) problems.push(`(i) the summar${other ? 'ies of two imports at once say' : 'y says'} ${money(claimed)} moved by this run; the ledger moved ${money(change.moved)}`)
      const interrupted = /Interrupted: [^\n]*?\(([^)]*?) moved by this run\)/.exec(r.stderr)
      if (interrupted) {
        // "none" / "nothing" (no amount named) is zero.
        const amount = /([\d,]+\.\d\d) USD/.exec(interrupted[1])?.[1]
        const said = amount ? minorOf(amount) : /^(none|nothing)$/.test(interrupted[1].trim()) ? 0 : Number.NaN
        if (said !== change.moved) problems.push(`(i) the sentence says ${interrupted[1]} moved by this run; the ledger moved ${money(change.moved)}`)
        if (r.code !== 6) problems.push(`an interrupted import exits ${r.code}, not 6`)
      }
      if (change.newMoves.length > sent.length) problems.push(`(ii) ${change.newMoves.length} new moves for a file of ${sent.length} rows`)
      if (r.code === 0) {
        if (summary && (summary.partial || summary.failed || summary.not_sent || summary.interrupted)) problems.push(`(iii) exit 0 with a summary of ${summary.partial} partial, ${summary.failed} failed, ${summary.not_sent} not sent`)
        const journal = importRecords(file)?.journal ?? []
        sent.forEach((row, i) => {
          const line = i + 2
          const entry = journal.find((e) => e.line === line)
          const mv = entry?.move_id ? after.moves.get(entry.move_id) : undefined
          if (!mv) {
            problems.push(`(iii) exit 0, but line ${line} has no move in the ledger (journal: ${JSON.stringify(entry ?? null)})`)
            return
          }
          if (mv.amount !== row.amount || mv.from !== w.subs[row.from] || mv.to !== w.subs[row.to]) problems.push(`(iii) exit 0, but line ${line}'s move is ${mv.amount} s${w.subs.indexOf(mv.from)}->s${w.subs.indexOf(mv.to)}, the row asks ${row.amount} s${row.from}->s${row.to}`)
          if (row.auto && mv.status !== 'settled') problems.push(`(iii) exit 0, but line ${line}'s move is ${mv.status}, not settled`)
          if (!row.auto && mv.status !== 'created' && mv.status !== 'settled') problems.push(`(iii) exit 0, but line ${line}'s move is ${mv.status}`)
        })
      }
    }, () => arm(w, s.fault, ['POST'], s.settle))
    // An edit is undone (the operator puts the row back), so that later runs can go on.
    if (s.mutation === 'edit') writeFileSync(f.name, csvOf(w, f.rows))
    remember(m, j)
  }
  toString(): string {
    return `ImportMoves(${JSON.stringify(this.s)})`
  }
}

function readFileExists(path: string): boolean {
  try {
    readFileSync(path)
    return true
  } catch {
    return false
  }
}

export interface TransferSpec {
  /** 0: main -> reserve; 1: reserve -> main. */
  direction: 0 | 1
  amount: number
  auto: boolean
  wait: boolean
  /** Async initiation on for the entity (202; the transfer moves on by itself after the answer). */
  async?: boolean
  rail: 'wire' | 'standard_ach' | 'same_day_ach'
  key: 'none' | 'fresh' | 'same'
  pick: number
  output: Output
  fault: Fault | null
}

const TRANSFER_ORDER = ['created', 'approved', 'initiated', 'settled']

/** The state a sentence about an account transfer gives it now (undefined: none given). */
function transferState(sentence: string): string | undefined {
  if (/this run settled it now/.test(sentence)) return 'settled'
  const phrase = /moved it on to ([^.]*)/.exec(sentence)?.[1] ?? /by [a-z_]+, ([^.)]*)/.exec(sentence)?.[1]
  if (phrase === undefined) return undefined
  if (phrase.startsWith('awaiting approval')) return 'created'
  if (phrase.startsWith('approved, queued for initiation')) return 'approved'
  return phrase.trim().split(/\s/)[0]
}

/** `transfers create` (with `--wait` on an entity with async initiation), with or without a key. */
export class CreateTransfer implements Cmd {
  constructor(readonly s: TransferSpec) {}
  check(m: Readonly<Model>): boolean {
    return this.s.key !== 'same' || m.transferKeys.length > 0
  }
  async run(m: Model, w: World): Promise<void> {
    const s = this.s
    let ask: {from: number; to: number; amount: number; auto: boolean} = {from: s.direction, to: 1 - s.direction, amount: s.amount, auto: s.auto || s.wait}
    let key: string | null = null
    if (s.key === 'fresh') {
      key = `${w.run}-transfer-${++m.counter}`
      m.transferKeys.push({key, ...ask})
    } else if (s.key === 'same') {
      const prior = m.transferKeys[s.pick % m.transferKeys.length]
      key = prior.key
      ask = {from: prior.from, to: prior.to, amount: prior.amount, auto: prior.auto}
    }
    const accounts = [w.main, w.reserve]
    const args = ['transfers', 'create', '--from', accounts[ask.from], '--to', accounts[ask.to], '--amount-minor', String(ask.amount), '--currency', 'USD', '--rail', s.rail]
    if (!ask.auto) args.push('--no-auto-approve')
    if (s.wait) args.push('--wait', '--poll-interval', '50', '--wait-timeout', '20')
    if (key) args.push('--idempotency-key', key)
    args.push('-o', s.output)
    const label = `${this.toString()} [transfers create ${money(ask.amount)}${ask.auto ? '' : ' no-auto'}${s.wait ? ' --wait' : ''}${key ? ` key=${key}` : ''}]`
    const delay = 10
    const j = await step(
      w,
      label,
      async () => {
        try {
          return await cli(w, args)
        } finally {
          if (s.wait || s.async) {
            await w.emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: false})
            await new Promise((r) => setTimeout(r, delay * 3))
          }
        }
      },
      (j) => {
        const {r, change, after, problems} = j
        if (r.code === 2) problems.push(`usage error for a request the model built to be valid: ${r.stderr.trim().slice(0, 300)}`)
        if (change.newTransfers.length > 1) problems.push(`(ii) one request created ${change.newTransfers.length} account transfers`)
        if (key) {
          const bound = [...after.transfers.values()].filter((t) => t.key === key || JSON.stringify(t.metadata ?? {}).includes(key))
          if (bound.length > 1) problems.push(`(ii) ${bound.length} account transfers carry the key ${key}`)
        }
        if (change.moved !== 0) problems.push('a transfer moved money between subaccounts')
        // Against --strict the list echoes no key: a transfer made before its answer was lost cannot be told from another one.
        if (r.code === 7 && s.fault && !s.wait && change.newTransfers.length === 1 && !w.strict) problems.push('(iii) exit 7 after a single fault, though the transfer was made: it carries its key and can be found in the list')
        let id: string | undefined
        let status: string | null | undefined
        const lines = outcomes(r)
        if (s.output === 'json') {
          if (lines.length > 1) problems.push(`${lines.length} outcome lines for one request`)
          id = lines[0]?.id
          status = lines[0]?.status
          if (lines[0]) kindAgrees(j, 'account transfer', lines[0].id, lines[0].kind)
          if ((r.code === 0 || r.code === 6) && !lines[0]) problems.push(`exit ${r.code} but no {"outcome":…} line on stderr`)
        } else {
          const sentenceLine = r.stderr.split('\n').find((l) => /(Created account transfer|names account transfer|^Account transfer accepted:) /.test(l)) ?? ''
          const sm = /(?:Created account transfer|names account transfer) (\S+?):? /.exec(sentenceLine) ?? /^Account transfer accepted:() /.exec(sentenceLine)
          id = sm?.[1] || undefined
          const kind = /^Replayed/.test(sentenceLine) ? 'replayed' : /this run (settled|approved|moved)/.test(sentenceLine) ? 'advanced' : /^Created/.test(sentenceLine) ? 'created' : undefined
          if (id && kind) kindAgrees(j, 'account transfer', id, kind)
          // A sentence about a replay describes the state now: what follows "this run settled it now" and the like.
          status = transferState(sentenceLine)
          if ((r.code === 0 || r.code === 6) && !sm) problems.push(`exit ${r.code} but no sentence names the account transfer`)
        }
        // A 202 without a body (--strict) names no transfer: the one the ledger gained is the one accepted.
        const accepted = !id && w.strict && change.newTransfers.length === 1 ? change.newTransfers[0].id : undefined
        // A replay of a transfer accepted without an id that the list cannot single out: nothing made now, its id not known.
        const unnamedReplay = !id && w.strict && change.newTransfers.length === 0 && (lines[0]?.kind === 'replayed' || /^Replayed: .* \(its id not known here\)/.test(r.stderr))
        if (r.code === 0 && !unnamedReplay) {
          const t = id ? after.transfers.get(id) : accepted ? after.transfers.get(accepted) : undefined
          if (!t) problems.push(`(iii) exit 0 names account transfer ${id}, which the ledger does not hold`)
          else {
            if (t.amount !== ask.amount || t.from !== accounts[ask.from] || t.to !== accounts[ask.to]) problems.push(`(iii) exit 0, but the transfer it names is ${t.amount} ${t.from} -> ${t.to}`)
            // With async initiation and no --wait the transfer moves on after the answer: the state said may only be behind.
            const behind = s.async && !s.wait && typeof status === 'string' && TRANSFER_ORDER.indexOf(status) >= 0 && TRANSFER_ORDER.indexOf(status) <= TRANSFER_ORDER.indexOf(t.status)
            // null: the answer gave no state (a 202 without a body), and the command said none.
            if (status != null && status !== t.status && !behind) problems.push(`the command says the transfer is ${status}; the ledger holds ${t.status}`)
            if (s.wait && ask.auto && !['settled', 'failed', 'canceled'].includes(t.status)) problems.push(`(iii) --wait exit 0 with the transfer ${t.status}`)
            // Held for approval: created, or moved on since by a checker's approval (as a move held may be settled since);
            // never failed or canceled.
            if (!ask.auto && !['created', 'approved', 'initiated', 'debited', 'settled'].includes(t.status)) problems.push(`(iii) exit 0 for a transfer not auto-approved that the ledger holds as ${t.status}`)
          }
        }
      },
      async () => {
        if (s.wait || s.async) await w.emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: true, delay_ms: delay})
        await arm(w, s.fault, ['POST'])
      },
    )
    remember(m, j)
  }
  toString(): string {
    return `CreateTransfer(${JSON.stringify(this.s)})`
  }
}

/** `transfers approve ID` of a transfer the run made. */
export class ApproveTransfer implements Cmd {
  constructor(readonly s: {pick: number; fault: Fault | null}) {}
  check(m: Readonly<Model>): boolean {
    return m.transfers.length > 0
  }
  async run(m: Model, w: World): Promise<void> {
    const id = m.transfers[this.s.pick % m.transfers.length]
    await step(w, `${this.toString()} [transfers approve ${id.slice(0, 8)}]`, () => cli(w, ['transfers', 'approve', id, '-o', 'json']), (j) => {
      const {r, before, after, problems} = j
      const was = before.transfers.get(id)!.status
      const now = after.transfers.get(id)!.status
      if (r.code === 0 && (now === 'created' || now === 'failed' || now === 'canceled')) problems.push(`(iii) exit 0 for an approve that took the transfer ${was} -> ${now}`)
      const o = outcomes(r)[0]
      if (r.code === 0 && o?.status && o.status !== now) problems.push(`the outcome line says ${o.status}; the ledger holds ${now}`)
    }, () => arm(w, this.s.fault, ['POST']))
  }
  toString(): string {
    return `ApproveTransfer(${JSON.stringify(this.s)})`
  }
}

/** Not an operator action: the bank settles (or fails) a transfer the run made, through the control API. */
export class BankAdvancesTransfer implements Cmd {
  constructor(readonly s: {pick: number; to: 'settled' | 'failed'}) {}
  check(m: Readonly<Model>): boolean {
    return m.transfers.length > 0
  }
  async run(m: Model, w: World): Promise<void> {
    const id = m.transfers[this.s.pick % m.transfers.length]
    const t = readLedger(w.emu).transfers.get(id)
    if (!t || ['settled', 'failed', 'canceled'].includes(t.status)) return
    await w.emu.control('POST', `/_emulator/transfers/${id}/advance`, {status: this.s.to})
    w.trace.push(`${this.toString()} [the bank: transfer ${id.slice(0, 8)} ${t.status} -> ${this.s.to}]`)
  }
  toString(): string {
    return `BankAdvancesTransfer(${JSON.stringify(this.s)})`
  }
}

export interface CreditSpec {
  amount: number
  sub: number | null
  rail: 'wire' | 'standard_ach'
  key: 'none' | 'fresh' | 'same'
  pick: number
  fault: Fault | null
}

/** `treasury simulate-credit` on the simulated main account, to it or to a subaccount. */
export class SimulateCredit implements Cmd {
  constructor(readonly s: CreditSpec) {}
  check(m: Readonly<Model>): boolean {
    return this.s.key !== 'same' || m.creditKeys.length > 0
  }
  async run(m: Model, w: World): Promise<void> {
    const s = this.s
    let ask = {amount: s.amount, sub: s.sub}
    let key: string | null = null
    if (s.key === 'fresh') {
      key = `${w.run}-credit-${++m.counter}`
      m.creditKeys.push({key, ...ask})
    } else if (s.key === 'same') {
      const prior = m.creditKeys[s.pick % m.creditKeys.length]
      key = prior.key
      ask = {amount: prior.amount, sub: prior.sub}
    }
    const args = ['treasury', 'simulate-credit', w.main, '--rail', s.rail, '--amount-minor', String(ask.amount)]
    if (ask.sub !== null) args.push('--subaccount', w.subs[ask.sub])
    if (key) args.push('--idempotency-key', key)
    args.push('-o', 'json')
    const label = `${this.toString()} [simulate-credit ${money(ask.amount)}${ask.sub === null ? '' : ` to s${ask.sub}`}${key ? ` key=${key}` : ''}]`
    await step(w, label, () => cli(w, args), (j) => {
      const {r, change, after, problems} = j
      if (r.code === 2) problems.push(`usage error for a request the model built to be valid: ${r.stderr.trim().slice(0, 300)}`)
      const o = outcomes(r)
      if (o.length > 1) problems.push(`${o.length} outcome lines for one request`)
      const body = jsonOr<{amount_in_minor_units?: number; bank_transaction_id?: string}>(r.stdout)
      const claimed = o[0] && (o[0].kind === 'created' || o[0].kind === 'advanced') ? (body?.amount_in_minor_units ?? ask.amount) : 0
      const credited = change.credits.reduce((n, l) => n + l.amount, 0)
      if (r.code !== 7 && claimed !== credited) problems.push(`(i) the command says ${money(claimed)} was credited now; the ledger credited ${money(credited)}${change.credits.length > 1 ? ` in ${change.credits.length} lines` : ''}`)
      if (change.credits.length > 1) problems.push(`(ii) one request made ${change.credits.length} simulated credits`)
      // Across runs too: a server that does not refuse a repeated reference (--strict) books each one it is sent.
      if (key) {
        const bound = [...after.bank.values()].filter((l) => l.reference === key)
        if (bound.length > 1) problems.push(`(ii) ${bound.length} simulated credits carry the reference ${key}`)
      }
      const toSubs = change.credits.filter((l) => l.subaccount !== null).reduce((n, l) => n + l.amount, 0)
      if (toSubs !== change.creditedToSubaccounts) problems.push(`subaccounts gained ${change.creditedToSubaccounts} from outside; the credits to them are ${toSubs}`)
      if ((r.code === 0 || r.code === 6) && !o[0]) problems.push(`exit ${r.code} but no {"outcome":…} line on stderr`)
      if (r.code === 0) {
        // An outcome may name no line (a duplicate reference refused: the earlier request made it); the key then finds it.
        const line = o[0]?.id ? after.bank.get(o[0].id) : key ? [...after.bank.values()].find((l) => l.reference === key) : undefined
        if (!line) problems.push(`(iii) exit 0 names credit ${o[0]?.id}, which the ledger does not hold`)
        else if (line.amount !== ask.amount || line.subaccount !== (ask.sub === null ? null : w.subs[ask.sub])) problems.push(`(iii) exit 0, but the credit it names is ${line.amount} to ${line.subaccount ?? 'the account'}`)
      }
    }, () => arm(w, s.fault, ['POST']))
  }
  toString(): string {
    return `SimulateCredit(${JSON.stringify(this.s)})`
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const amountArb = fc.integer({min: 1, max: 5000})
const routeArb = fc.tuple(fc.integer({min: 0, max: 2}), fc.integer({min: 1, max: 2})).map(([from, step]) => ({from, to: (from + step) % 3}))
const askArb: fc.Arbitrary<MoveAsk> = fc
  .record({route: routeArb, amount: amountArb, auto: fc.oneof({weight: 3, arbitrary: fc.constant(true)}, {weight: 1, arbitrary: fc.constant(false)}), meta: fc.option(fc.constantFrom({note: 'a'}, {note: 'b'}), {freq: 3})})
  .map(({route, amount, auto, meta}) => ({...route, amount, auto, ...(meta ? {meta} : {})}))
const rowArb: fc.Arbitrary<ImportRow> = fc
  .record({route: routeArb, amount: fc.integer({min: 1, max: 2000}), auto: fc.oneof({weight: 4, arbitrary: fc.constant(true)}, {weight: 1, arbitrary: fc.constant(false)})})
  .map(({route, amount, auto}) => ({...route, amount, auto}))

export const commandArbs: Array<fc.Arbitrary<Cmd>> = [
  fc
    .record({
      ask: askArb,
      key: fc.constantFrom<KeyMode>('none', 'fresh', 'fresh', 'same', 'amount', 'dest', 'meta'),
      pick: fc.nat(),
      decimal: fc.boolean(),
      via: fc.oneof({weight: 4, arbitrary: fc.constant<'cli'>('cli')}, {weight: 1, arbitrary: fc.constant<'api'>('api')}),
      output: outputArb,
      fault: faultArb,
      settle: settleArb,
    })
    .map((s) => new CreateMove(s)),
  fc.record({pick: fc.nat(), output: outputArb, fault: faultArb, settle: settleArb}).map((s) => new ApproveMove(s)),
  fc.record({pick: fc.nat(), output: outputArb, fault: faultArb}).map((s) => new CancelMove(s)),
  fc
    .record({
      file: fc.integer({min: 0, max: 1}),
      mutation: fc.constantFrom<Mutation>('rerun', 'append', 'duplicate', 'edit'),
      rows: fc.array(rowArb, {minLength: 1, maxLength: 4}),
      at: fc.nat(),
      interrupt: fc.option(fc.nat(), {freq: 3}),
      twice: fc.oneof({weight: 5, arbitrary: fc.constant(false)}, {weight: 1, arbitrary: fc.constant(true)}),
      fault: faultArb,
      settle: settleArb,
    })
    .map((s) => new ImportMoves(s)),
  fc
    .record({
      direction: fc.constantFrom<0 | 1>(0, 1),
      amount: amountArb,
      auto: fc.boolean(),
      wait: fc.boolean(),
      async: fc.boolean(),
      rail: fc.constantFrom<TransferSpec['rail']>('wire', 'standard_ach', 'same_day_ach'),
      key: fc.constantFrom<TransferSpec['key']>('none', 'fresh', 'same'),
      pick: fc.nat(),
      output: outputArb,
      fault: faultArb,
    })
    .map((s) => new CreateTransfer(s)),
  fc.record({pick: fc.nat(), fault: faultArb}).map((s) => new ApproveTransfer(s)),
  fc.record({pick: fc.nat(), to: fc.constantFrom<'settled' | 'failed'>('settled', 'settled', 'failed')}).map((s) => new BankAdvancesTransfer(s)),
  fc
    .record({
      amount: amountArb,
      sub: fc.option(fc.integer({min: 0, max: 2}), {freq: 2}),
      rail: fc.constantFrom<CreditSpec['rail']>('wire', 'standard_ach'),
      key: fc.constantFrom<CreditSpec['key']>('none', 'fresh', 'same'),
      pick: fc.nat(),
      fault: faultArb,
    })
    .map((s) => new SimulateCredit(s)),
]

/** Runs a fixed sequence of commands in a fresh world (a regression test of a shrunk counterexample). */
export async function runSequence(emu: Emulator, cmds: Cmd[], drift: false | ((emu: Emulator) => Promise<void>) = false): Promise<void> {
  const w = await newWorld(emu, drift)
  try {
    await fc.asyncModelRun(() => ({model: newModel(), real: w}), cmds)
  } finally {
    w.dir.cleanup()
  }
}

export {faultText}
