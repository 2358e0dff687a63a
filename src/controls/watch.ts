/**
 * `payops watch`: checks the profile's rules against the API, once or on an interval. An alert
 * fires when a rule is crossed and re-arms when it clears, so a condition that holds is reported
 * once: the state is kept in the control store (controls.sqlite, or the team store the profile names,
 * shared by the team), per key (src/control/alerts.ts). Each alert is one JSON line
 * on stdout (a sentence on a terminal), and is handed to `--exec CMD` (the JSON on its stdin) and
 * `--post URL` (signed as the service signs its webhooks) when asked.
 */
import {spawn} from 'node:child_process'
import {keyIdOf, registerSecret} from '../api/redact.js'
import type {Api} from '../api/index.js'
import type {CommandContext} from '../context/index.js'
import {openAlertStore} from '../control/alerts.js'
import type {ControlStore} from '../control/types.js'
import {ExceptionsFound, ExitCode, InterruptedError, PayopsError, UsageError} from '../errors.js'
import {serviceNow} from '../books/dates.js'
import {formatMoney, subtractMinor} from '../money.js'
import {listPending} from '../movements/approvals.js'
import {isLoopbackHost, runFetch} from '../net.js'
import {sign} from '../webhooks/signature.js'
import {toJson} from '../json.js'
import {describeRule, ruleId, type WatchRule} from './rules.js'

/** One crossed condition: its key (a rule may hold several: one per transfer) and what to say. */
export interface Condition {
  key: string
  message: string
  data: Record<string, unknown>
}

export interface Alert extends Record<string, unknown> {
  type: 'alert'
  rule: string
  key: string
  fired_at: string
  message: string
  profile: string | null
}

export interface WatchOptions {
  once: boolean
  intervalMs: number
  exec?: string
  post?: string
}


const HOUR = 3_600_000
/** How far back `reconcile-exceptions` reconciles (through today). */
export const RECONCILE_DAYS = 30
const EXEC_TIMEOUT_MS = 30_000
const POST_TIMEOUT_MS = 10_000
/** What of an `--exec` command's output is shown (the rest is dropped). */
const EXEC_OUTPUT_BYTES = 64 * 1024
const short = (id: string) => `${id.slice(0, 8)}…`

/** What each rule finds crossed now. */
async function evaluate(rule: WatchRule, api: Api, ctx: CommandContext, clock: () => number): Promise<Condition[]> {
  switch (rule.rule) {
    case 'min-balance': {
      const s = (await api.subaccounts.get(rule.subaccount)).data
      const currency = (s.currency_code ?? rule.currency_code).toUpperCase()
      if (currency !== rule.currency_code) throw new UsageError(`min-balance ${rule.subaccount}: the subaccount is in ${currency}, the floor in ${rule.currency_code}.`)
      const balance = subtractMinor(s.total_incoming_in_minor_units, s.total_outgoing_in_minor_units)
      if (BigInt(balance) >= BigInt(rule.amount_in_minor_units)) return []
      ctx.names.remember(s.id, s.name, 'subaccount')
      return [
        {
          key: `min-balance:${s.id}`,
          message: `${s.name} (${short(s.id)}) has a balance of ${formatMoney(balance, currency)}, below the floor of ${formatMoney(rule.amount_in_minor_units, currency)}.`,
          data: {subaccount_id: s.id, name: s.name, balance_in_minor_units: balance, floor_in_minor_units: rule.amount_in_minor_units, currency_code: currency},
        },
      ]
    }
    case 'transfer-failed': {
      const out: Condition[] = []
      for await (const t of api.transfers.list({status: ['failed'], limit: 500}, {all: true})) {
        out.push({
          key: `transfer-failed:${t.id}`,
          message: `Account transfer ${t.id} of ${formatMoney(t.amount_in_minor_units, t.currency_code)} by ${t.rail} failed.`,
          data: {transfer_id: t.id, from_account_id: t.from_account_id, to_account_id: t.to_account_id, amount_in_minor_units: t.amount_in_minor_units, currency_code: t.currency_code, rail: t.rail},
        })
      }
      return out
    }
    case 'transfer-stuck': {
      const out: Condition[] = []
      for await (const t of api.transfers.list({status: ['approved', 'initiated'], limit: 500}, {all: true})) {
        const now = clock()
        const since = Date.parse(t.updated_at ?? t.created_at ?? '')
        if (Number.isNaN(since) || now - since <= rule.hours * HOUR) continue
        const hours = Math.floor((now - since) / HOUR)
        out.push({
          key: `transfer-stuck:${t.id}`,
          message: `Account transfer ${t.id} of ${formatMoney(t.amount_in_minor_units, t.currency_code)} by ${t.rail} has been ${t.status} for ${hours} h (over ${rule.hours} h).`,
          data: {transfer_id: t.id, status: t.status, since: new Date(since).toISOString(), amount_in_minor_units: t.amount_in_minor_units, currency_code: t.currency_code, rail: t.rail},
        })
      }
      return out
    }
    case 'approval-waiting': {
      const out: Condition[] = []
      const pending = await listPending(ctx, {moves: true, transfers: true})
      const now = clock()
      for (const item of pending) {
        const since = Date.parse(item.created_at ?? '')
        if (Number.isNaN(since) || now - since <= rule.hours * HOUR) continue
        const what = item.kind === 'move' ? 'Move' : 'Account transfer'
        out.push({
          key: `approval-waiting:${item.kind}:${item.id}`,
          message: `${what} ${item.id} of ${formatMoney(item.amount_in_minor_units, item.currency_code) || '(amount unknown)'} has awaited approval for ${Math.floor((now - since) / HOUR)} h (over ${rule.hours} h).`,
          data: {kind: item.kind, id: item.id, since: new Date(since).toISOString(), amount_in_minor_units: item.amount_in_minor_units, currency_code: item.currency_code, source: item.source},
        })
      }
      return out
    }
    case 'reconcile-exceptions':
      return reconcileExceptions(rule.account, ctx, clock())
  }
}

/** The reconciliation's open exceptions on the account over the last RECONCILE_DAYS days (resolved ones do not count). */
async function reconcileExceptions(account: string, ctx: CommandContext, now: number): Promise<Condition[]> {
  const {reconcile, DEFAULT_WINDOW_DAYS} = await import('../books/reconcile.js')
  const to = new Date(now).toISOString().slice(0, 10)
  const from = new Date(now - RECONCILE_DAYS * 24 * HOUR).toISOString().slice(0, 10)
  const report = await reconcile({account, from, to, window: DEFAULT_WINDOW_DAYS, subaccounts: [], hideMatched: true}, ctx)
  return report.items
    .filter((i) => i.exception)
    .map((i) => ({
      key: `reconcile:${account}:${i.key}`,
      message: `Reconciliation exception on ${account}: ${i.kind} ${formatMoney(i.amount_in_minor_units ?? i.bank_amount_in_minor_units, i.currency_code)} on ${i.date}${i.bank_description ? ` (${i.bank_description})` : ''}; resolve with \`payops reconcile resolve ${i.key} --as LABEL\`.`,
      data: {account_id: account, item_key: i.key, kind: i.kind, date: i.date, amount_in_minor_units: i.amount_in_minor_units ?? i.bank_amount_in_minor_units, currency_code: i.currency_code},
    }))
}

/** `30s`, `5m`, `1h`, `500ms` into milliseconds: from 1 second to 1 day. */
export function parseInterval(v: string): number {
  const m = /^(\d+)(ms|s|m|h)$/.exec(v.trim())
  const ms = m ? Number(m[1]) * {ms: 1, s: 1000, m: 60_000, h: HOUR}[m[2] as 'ms'] : Number.NaN
  if (!(ms >= 1000 && ms <= 24 * HOUR)) throw new UsageError(`--interval "${v}" is not a duration from 1s to 24h (e.g. 30s, 5m, 1h).`)
  return ms
}

function checkPostUrl(v: string): URL {
  let url: URL
  try {
    url = new URL(v)
  } catch {
    throw new UsageError(`--post "${v}" is not a URL.`)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) throw new UsageError(`--post "${v}" must use https:// (http:// only to loopback).`)
  return url
}

/** payops' own secrets among environment variables: PAYOPS_API_KEY, PAYOPS_WATCH_SECRET, PAYOPS_WEBHOOK_SECRET(S) and their kind. */
const OWN_SECRET_VAR = /^PAYOPS_.*(KEY|SECRET|TOKEN|PASSW)/i

/**
 * The environment `--exec` runs in: the run's own, without payops' secrets (OWN_SECRET_VAR) and
 * without any variable holding one of `secrets` (the API key in use, the watch secret) under
 * another name. The command gets the alert on stdin; it needs no key to act on it.
 */
export function execEnv(env: NodeJS.ProcessEnv, secrets: ReadonlyArray<string | undefined>): NodeJS.ProcessEnv {
  const held = secrets.filter((s): s is string => typeof s === 'string' && s.trim() !== '')
  const out: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(env)) {
    if (OWN_SECRET_VAR.test(k) || (v !== undefined && held.some((s) => v.includes(s)))) continue
    out[k] = v
  }
  return out
}

/**
 * Hands the alert to `--exec`: the command's stdin gets the JSON; what it prints (the first
 * EXEC_OUTPUT_BYTES) goes to stderr as lines, escaped like any text from outside (it may echo the
 * alert's names).
 */
function runExec(cmd: string, json: string, ctx: CommandContext): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(cmd, {shell: true, stdio: ['pipe', 'pipe', 'pipe'], env: execEnv(ctx.io.env, [ctx.profile.apiKey, ctx.io.env.PAYOPS_WATCH_SECRET])})
    const timer = setTimeout(() => child.kill('SIGKILL'), EXEC_TIMEOUT_MS)
    let output = ''
    const keep = (d: Buffer) => {
      if (output.length < EXEC_OUTPUT_BYTES) output += d.toString('utf8').slice(0, EXEC_OUTPUT_BYTES - output.length)
    }
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    child.on('close', () => {
      if (output) ctx.out.note(output.replace(/\n$/, '').split('\n'))
    })
    child.on('error', (err) => {
      clearTimeout(timer)
      resolve(`--exec could not run: ${err.message}`)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve(code === 0 ? undefined : `--exec ended with ${signal ? `signal ${signal}` : `exit ${code}`}`)
    })
    child.stdin.on('error', () => undefined)
    child.stdin.end(json + '\n')
  })
}

/** Hands the alert to `--post`, signed: X-Webhook-Signature = hex HMAC-SHA256 of `{timestamp}.{body}`. */
async function runPost(url: URL, secret: string, json: string, now: number): Promise<string | undefined> {
  const ts = String(Math.floor(now / 1000))
  try {
    const res = await runFetch(url, {
      method: 'POST',
      body: json,
      headers: {'content-type': 'application/json', 'x-webhook-timestamp': ts, 'x-webhook-signature': sign(secret, ts, json)},
      redirect: 'manual',
      signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    })
    return res.ok ? undefined : `--post ${url.origin} answered ${res.status}`
  } catch (err) {
    return `--post ${url.origin} failed: ${(err as Error).message}`
  }
}

/** Runs the watch: one cycle with --once (exit 9 when an alert fired), else one per interval until Ctrl-C. */
export async function runWatch(opts: WatchOptions, ctx: CommandContext): Promise<void> {
  const r = ctx.profile
  const rules = r.profile?.watch ?? []
  if (!rules.length) throw new UsageError(`Profile "${r.profileName ?? '(none)'}" has no watch rules: add one with \`payops profiles set NAME watch RULE ARGS...\`.`)
  const post = opts.post ? checkPostUrl(opts.post) : undefined
  const secret = ctx.io.env.PAYOPS_WATCH_SECRET
  if (post && !secret) throw new UsageError('--post signs each alert with the secret in PAYOPS_WATCH_SECRET, which is not set.')
  registerSecret(secret)
  const api = await ctx.api(['subaccounts', 'transfers', 'treasury'])
  const scope = `${keyIdOf(r.apiKey) ?? 'none'}:${r.profileName ?? ''}`
  const store = await openAlertStore(ctx)
  await store.records.forgetAlerts(scope, rules.map((x) => JSON.stringify(x)))
  const stop = ctx.stopSignal()
  let stopped = false
  void stop.then(() => (stopped = true))
  try {
    if (!opts.once) ctx.out.note(`Watching ${rules.length === 1 ? 'one rule' : `${rules.length} rules`} every ${opts.intervalMs / 1000} s; Ctrl-C stops.`)
    for (;;) {
      const {fired, failed} = await cycle(rules, api, ctx, store, scope, opts, post, secret)
      if (opts.once) {
        if (fired) throw new ExceptionsFound(`${fired === 1 ? 'One alert' : `${fired} alerts`} fired.`)
        if (failed) throw new PayopsError(`${failed === 1 ? 'One rule' : `${failed} rules`} could not be checked (see above).`, ExitCode.UNEXPECTED)
        return
      }
      await Promise.race([ctx.clock.sleep(opts.intervalMs), stop])
      if (stopped) throw new InterruptedError('Stopped watching.')
    }
  } finally {
    await store.close()
  }
}

async function cycle(rules: WatchRule[], api: Api, ctx: CommandContext, store: ControlStore, scope: string, opts: WatchOptions, post: URL | undefined, secret: string | undefined): Promise<{fired: number; failed: number}> {
  let fired = 0
  let failed = 0
  for (const rule of rules) {
    const now = ctx.clock.now()
    let crossed: Condition[]
    try {
      // Times of the service's items are compared with the service's clock (its answers' HTTP Date).
      crossed = await evaluate(rule, api, ctx, () => serviceNow(ctx, api))
    } catch (err) {
      // A rule that cannot be checked keeps its alerts as they were.
      failed++
      ctx.out.warn(`${describeRule(rule)}: could not be checked: ${(err as Error).message}`)
      continue
    }
    const at = new Date(now).toISOString()
    // Decided and recorded in one transaction of the store: with a team store, the first watch to see a condition fires it.
    const fire = new Set(await store.records.alertCycle(scope, ruleId(rule), JSON.stringify(rule), crossed.map((c) => c.key), at))
    for (const c of crossed.filter((x) => fire.has(x.key))) {
      fired++
      const alert: Alert = {type: 'alert', rule: rule.rule, key: c.key, fired_at: at, message: c.message, profile: ctx.profile.profileName ?? null, ...c.data}
      const json = toJson(alert)
      if (ctx.out.machine) await ctx.out.jsonLine(alert)
      else await ctx.out.writeLine(`${ctx.out.paint.red('ALERT')} ${rule.rule}: ${c.message}`)
      for (const failure of [opts.exec ? await runExec(opts.exec, json, ctx) : undefined, post ? await runPost(post, secret!, json, now) : undefined]) {
        if (failure) ctx.out.warn(`${c.key}: ${failure}`)
      }
    }
  }
  return {fired, failed}
}
