/**
 * What the emulator's unit tests share: one `call()` that sends a request to an emulator and,
 * for every documented (or assumed) API route, parses the successful reply with the client's own
 * resource schema, so that a hand-built view that drifts from the schema fails the test that
 * received it, whatever that test asserts.
 */
import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll} from 'vitest'
import type * as z from 'zod/mini'
import {startEmulator, type RunningEmulator} from '../src/index.js'
import {CLIENT_PATHS as PATHS, envelope, listEnvelope, Move, Payee, Payer, Payin, SessionTokenResponse, ActivityItem, Subaccount, AccountTransfer, ConversionEstimate, RailOptions, BankTransaction, SimulatedCredit, TreasuryAccount, TreasuryBalance, EventTypeEntry, WebhookEndpoint, WebhookEndpointWithSecret, type ClientPathName as PathName} from './oracle.js'
import {tempDir} from './support.js'

export interface Res {
  status: number
  /**
   * The parsed JSON body (undefined when empty). Deliberately `any`: the emulator's tests read
   * replies of every shape (envelopes, lists, errors, control answers) field by field, and the
   * replies of API routes are checked against the client's schemas by {@link call} already.
   */
  body: any
  headers: Headers
}

/** An activity line as the emulator sends it: USD lines carry `amount_in_cents`, others `amount_in_minor_units`. */
export interface ActivityLine {
  id: string
  source: string
  direction: string
  amount_in_cents?: number
  amount_in_minor_units?: number
  currency_code: string
  effective_at: string
}

/** A subaccount as the emulator sends it: canonical totals and routing numbers, and the legacy fields. */
export interface SubaccountView {
  id: string
  name: string
  account_number: string
  routing_number: string
  routing_numbers: {ach: string; wire: string}
  total_incoming_in_minor_units: number
  total_outgoing_in_minor_units: number
  total_incoming_cents: number
  total_outgoing_cents: number
  currency_code: string
  created_at: string
  updated_at: string
}

/** An entity as the control API lists it (GET /_emulator/entities). */
export interface EntityView {
  id: string
  role: string
  name: string
  mode: string
  subaccount_ids: string[]
  treasury_account_ids: string[]
}

/** Where to send: a running emulator, or any base URL with the seeded keys. */
export interface Target {
  baseUrl: string
  keys: {test: string}
}

export interface CallOptions {
  /** The `x-api-key`; default the test entity's key, null for none. */
  key?: string | null
  /** Sent as JSON. */
  body?: unknown
  /** Sent as is (with a JSON content type), instead of `body`. */
  raw?: string
  headers?: Record<string, string>
  /** The `idempotency-key` header. */
  idem?: string
}

type Reply = 'one' | 'list' | 'bare'

/** The reply of each API route: its resource schema and how it is wrapped. */
const REPLIES: Array<[method: string, path: PathName, schema: z.ZodMiniType, reply: Reply]> = [
  ['POST', 'subaccounts', Subaccount, 'one'],
  ['GET', 'subaccount', Subaccount, 'one'],
  ['GET', 'subaccountActivity', ActivityItem, 'list'],
  ['POST', 'moveCreate', Move, 'one'],
  ['POST', 'moveApprove', Move, 'one'],
  ['DELETE', 'moveCancel', Move, 'one'],
  ['GET', 'treasuryAccounts', TreasuryAccount, 'list'],
  ['POST', 'treasuryAccountLabel', TreasuryAccount, 'one'],
  ['GET', 'bankTransactions', BankTransaction, 'list'],
  ['GET', 'bankTransaction', BankTransaction, 'one'],
  ['POST', 'simulateInboundCredit', SimulatedCredit, 'one'],
  ['GET', 'treasuryAccountBalance', TreasuryBalance, 'one'],
  ['GET', 'transfers', AccountTransfer, 'list'],
  ['POST', 'transferCreate', AccountTransfer, 'one'],
  ['POST', 'transferApprove', AccountTransfer, 'one'],
  ['GET', 'conversionEstimate', ConversionEstimate, 'one'],
  ['GET', 'railOptions', RailOptions, 'one'],
  ['GET', 'payers', Payer, 'list'],
  ['GET', 'payees', Payee, 'list'],
  ['GET', 'payee', Payee, 'one'],
  ['GET', 'payin', Payin, 'one'],
  ['POST', 'sessionTokens', SessionTokenResponse, 'bare'],
  ['POST', 'partySessionTokens', SessionTokenResponse, 'bare'],
  ['POST', 'webhooks', WebhookEndpointWithSecret, 'one'],
  ['GET', 'webhooks', WebhookEndpoint, 'list'],
  ['GET', 'webhookEventTypes', EventTypeEntry, 'list'],
  ['GET', 'webhook', WebhookEndpoint, 'one'],
  ['PATCH', 'webhook', WebhookEndpoint, 'one'],
  ['DELETE', 'webhook', WebhookEndpoint, 'one'],
  ['POST', 'webhookEnable', WebhookEndpoint, 'one'],
  ['POST', 'webhookDisable', WebhookEndpoint, 'one'],
]

interface Check {
  method: string
  template: string
  pattern: RegExp
  /** Static segments first, as the router ranks them: `/api/webhooks/event-types` before `/api/webhooks/{webhook_id}`. */
  rank: string
  schema: z.ZodMiniType
}

const CHECKS: Check[] = REPLIES.map(([method, name, schema, reply]) => {
  const template = PATHS[name]
  const segments = template.split('/').slice(1)
  const pattern = new RegExp(`^/${segments.map((s) => (s.startsWith('{') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`)
  const rank = segments.map((s) => (s.startsWith('{') ? '1' : '0')).join('')
  return {method, template, pattern, rank, schema: reply === 'one' ? envelope(schema) : reply === 'list' ? listEnvelope(schema) : schema}
}).sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))

/** Every `METHOD template` whose replies {@link call} checks. */
export const CHECKED_ROUTES: readonly string[] = REPLIES.map(([method, name]) => `${method} ${PATHS[name]}`)

/** Throws when a 2xx reply of a known API route does not parse with the client's schema. */
export function checkReply(method: string, path: string, res: Pick<Res, 'status' | 'body'>): void {
  if (res.status < 200 || res.status > 299 || method === 'HEAD') return
  const bare = path.split('?', 1)[0]
  const check = CHECKS.find((c) => c.method === method && c.pattern.test(bare))
  if (!check) return
  const r = check.schema.safeParse(res.body)
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ')
    throw new Error(`${method} ${path} (${check.template}) answered ${res.status} with a body the client's schema refuses: ${issues}\n${JSON.stringify(res.body).slice(0, 2000)}`)
  }
}

/** Sends one request; the body is parsed as JSON (undefined when empty) and checked by {@link checkReply}. */
export async function call(target: Target, method: string, path: string, opts: CallOptions = {}): Promise<Res> {
  const headers: Record<string, string> = {...opts.headers}
  const key = opts.key === undefined ? target.keys.test : opts.key
  if (key !== null) headers['x-api-key'] = key
  if (opts.idem) headers['idempotency-key'] = opts.idem
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body))
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(target.baseUrl + path, {method, headers, body})
  const text = await res.text()
  const out: Res = {status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers}
  checkReply(method, path, out)
  return out
}

/** {@link call} bound to a target read at each call (the emulator a `beforeAll` starts). */
export function caller(target: () => Target): (method: string, path: string, opts?: CallOptions) => Promise<Res> {
  return (method, path, opts) => call(target(), method, path, opts)
}

/**
 * Emulators started in a test file, all closed after it, and a temporary folder for their state
 * files (removed after it): `const emu = emulatorFixture('payops-emulator-')`, then
 * `await emu.start(statePath?)` and `emu.dir` inside the tests.
 */
export function emulatorFixture(prefix: string): {start(statePath?: string): Promise<RunningEmulator>; readonly dir: string} {
  let dir = ''
  const running: RunningEmulator[] = []
  beforeAll(async () => {
    dir = tempDir(prefix).path
  })
  afterAll(async () => {
    await Promise.all(running.map((em) => em.close()))
    await rm(dir, {recursive: true, force: true})
  })
  return {
    async start(statePath) {
      const em = await startEmulator({port: 0, statePath})
      running.push(em)
      return em
    },
    get dir() {
      return dir
    },
  }
}
