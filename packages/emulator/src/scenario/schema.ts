/**
 * A scenario: the test entity's whole world in one document (YAML or JSON, see docs/emulator.md):
 * treasury accounts with opening balances, subaccounts with names and balances, payers, payees,
 * moves in every state, account transfers scheduled, in flight, settled or stuck, payins, bank
 * lines (those dated after the clock appear when it reaches their day) and webhook endpoints.
 *
 * {@link checkScenario} checks a document whole, shape first (unknown fields are refused, so a
 * typo never passes silently) and then what the fields name (accounts, subaccounts and payers by
 * their names in the file, amounts in their account's currency, rails between the two accounts'
 * currencies), and returns every problem with the path of the field it is about: the CLI turns
 * paths into `file:line:col`, the emulator checks the same way before it changes anything.
 */
import * as z from 'zod/mini'
import {ClientMetadata} from '../interface/common.js'
import {MOVE_STATUSES} from '../interface/moves.js'
import {CalendarDate, PAYIN_RAILS, PAYIN_STATUSES} from '../interface/parties.js'
import {TRANSFER_RAILS} from '../interface/transfers.js'
import {Description, EventTypeList, WebhookUrl} from '../interface/webhooks.js'
import {minorUnitsOf} from '../lib/money.js'
import {parseInstant} from '../clock/clock.js'

const oneOf = <const T extends readonly [string, ...string[]]>(values: T, name: string) => z.enum(values, {message: `${name} must be one of ${values.join(', ')}`})
const text = (name: string, max: number) => z.string({message: `${name} must be text`}).check(z.minLength(1, `${name} must not be empty`), z.maxLength(max, `${name} must be at most ${max} characters`))
const Amount = z.union([z.string(), z.number()], {message: 'amount must be a decimal such as 1250.00'})
const Day = z.pipe(z.union([z.string(), z.date()], {message: 'must be a date YYYY-MM-DD'}), z.transform((v: string | Date) => (v instanceof Date ? v.toISOString().slice(0, 10) : v)))
const Date_ = z.pipe(Day, CalendarDate)
const Hold = z.optional(z.boolean({message: 'hold must be true or false'}))
const Metadata = z.optional(ClientMetadata)
const Loose = z.optional(z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])))

const Account = z.strictObject({
  name: text('name', 100),
  label: z.optional(text('label', 200)),
  currency: z.optional(z.string().check(z.regex(/^[A-Z]{3}$/, 'currency must be an ISO 4217 code such as USD'))),
  simulated: z.optional(z.boolean({message: 'simulated must be true or false'})),
  balance: z.optional(Amount),
})

const Subaccount = z.strictObject({name: text('name', 100), balance: z.optional(Amount)})

const Party = z.strictObject({
  name: text('name', 200),
  email: z.email({message: 'email must be an email address'}),
  country_code: z.optional(oneOf(['US', 'GB', 'IN'], 'country_code')),
  country_sub_division: z.optional(text('country_sub_division', 100)),
  city: z.optional(text('city', 100)),
  address_line: z.optional(text('address_line', 200)),
  postal_code: z.optional(text('postal_code', 20)),
  metadata: Metadata,
})

const Move = z.strictObject({
  from: text('from', 100),
  to: text('to', 100),
  amount: Amount,
  status: z.optional(oneOf(MOVE_STATUSES, 'status')),
  metadata: Metadata,
})

const TRANSFER_STATES = ['created', 'approved', 'initiated', 'settled', 'failed', 'canceled'] as const
const Transfer = z.strictObject({
  from: text('from', 100),
  to: text('to', 100),
  amount: Amount,
  rail: oneOf(TRANSFER_RAILS, 'rail'),
  status: z.optional(oneOf(TRANSFER_STATES, 'status')),
  scheduled_date: z.optional(Date_),
  hold: Hold,
  metadata: Loose,
})

const Payin = z.strictObject({
  payer: text('payer', 200),
  amount: Amount,
  rail: z.optional(oneOf(PAYIN_RAILS, 'rail')),
  status: z.optional(oneOf(PAYIN_STATUSES, 'status')),
  scheduled_date: z.optional(Date_),
  hold: Hold,
  metadata: Loose,
})

const BankLine = z.strictObject({
  account: text('account', 100),
  amount: Amount,
  direction: oneOf(['credit', 'debit'], 'direction'),
  description: z.optional(text('description', 200)),
  date: z.optional(Date_),
  sender_info: z.optional(text('sender_info', 200)),
  receiver_info: z.optional(text('receiver_info', 200)),
  subaccount: z.optional(text('subaccount', 100)),
})

const Webhook = z.strictObject({
  url: WebhookUrl,
  event_types: EventTypeList,
  description: z.optional(Description),
  /** The environment variable holding the endpoint's signing secret (read by the CLI, never written in the file). */
  secret_env: z.optional(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'secret_env must name an environment variable'))),
  /** The secret itself: filled in by the CLI from secret_env, refused in a file. */
  secret: z.optional(z.string().check(z.minLength(16, 'secret must be at least 16 characters'), z.maxLength(200, 'secret must be at most 200 characters'))),
})

const list = <T extends z.ZodMiniType>(item: T, name: string) => z.optional(z.array(item, {message: `${name} must be a list`}).check(z.maxLength(10_000, `${name}: at most 10000 entries`)))

export const ScenarioShape = z.strictObject({
  name: z.optional(text('name', 100)),
  description: z.optional(z.string()),
  clock: z.optional(z.pipe(z.union([z.string(), z.date()], {message: 'clock must be an instant'}), z.transform((v: string | Date) => (v instanceof Date ? v.toISOString() : v)))),
  opening_date: z.optional(Date_),
  bank_feed: z.optional(z.strictObject({fee_rate: z.optional(z.number().check(z.gte(0, 'fee_rate must be 0 to 1'), z.lte(1, 'fee_rate must be 0 to 1'))), seed: z.optional(z.int('seed must be a whole number'))})),
  accounts: z.array(Account, {message: 'accounts must be a list'}).check(z.minLength(1, 'accounts must list at least one treasury account'), z.maxLength(50, 'accounts: at most 50')),
  subaccounts: list(Subaccount, 'subaccounts'),
  payers: list(Party, 'payers'),
  payees: list(Party, 'payees'),
  moves: list(Move, 'moves'),
  transfers: list(Transfer, 'transfers'),
  payins: list(Payin, 'payins'),
  bank_lines: list(BankLine, 'bank_lines'),
  webhooks: list(Webhook, 'webhooks'),
})
export type Scenario = z.output<typeof ScenarioShape>

export type PathKey = string | number
export interface ScenarioIssue {
  path: PathKey[]
  message: string
}

/** `transfers[2].rail`: a path as the messages show it. */
export function pathText(path: readonly PathKey[]): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('')
}

/** The zod issues as scenario issues: an unknown field is named by its own path. */
function shapeIssues(error: z.core.$ZodError): ScenarioIssue[] {
  const out: ScenarioIssue[] = []
  for (const i of error.issues) {
    const path = i.path.map((k) => (typeof k === 'number' ? k : String(k)))
    if (i.code === 'unrecognized_keys') for (const key of i.keys) out.push({path: [...path, key], message: 'unknown field'})
    else if (i.code === 'invalid_union' && path.at(-1) === 'amount') out.push({path, message: 'amount must be a decimal such as 1250.00'})
    else out.push({path, message: i.message})
  }
  return out
}

/** Checks a scenario document whole: every problem with its path, or the scenario. */
export function checkScenario(input: unknown): {ok: true; scenario: Scenario} | {ok: false; issues: ScenarioIssue[]} {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return {ok: false, issues: [{path: [], message: 'a scenario is a mapping with at least accounts'}]}
  const r = ScenarioShape.safeParse(input)
  if (!r.success) return {ok: false, issues: shapeIssues(r.error)}
  const issues = checkReferences(r.data)
  return issues.length ? {ok: false, issues} : {ok: true, scenario: r.data}
}

/** The currency of an account entry (USD unless given). */
export const currencyOf = (a: {currency?: string}) => a.currency ?? 'USD'

/** The main account: the first USD account, else the first (as the emulator chooses it). */
export function mainEntry(s: Scenario) {
  return s.accounts.find((a) => currencyOf(a) === 'USD') ?? s.accounts[0]
}

/** An amount in minor units of `currency`, or the problem with it. */
export function minorOf(amount: string | number, currency: string): number | string {
  try {
    return minorUnitsOf(typeof amount === 'number' ? String(amount) : amount, currency)
  } catch (err) {
    return (err as Error).message
  }
}

function checkReferences(s: Scenario): ScenarioIssue[] {
  const issues: ScenarioIssue[] = []
  const add = (path: PathKey[], message: string) => issues.push({path, message})
  if (s.clock !== undefined && parseInstant(s.clock) === undefined) add(['clock'], `clock "${s.clock}" is not an instant such as 2026-01-05T09:00:00-05:00 (with its offset)`)
  const accounts = uniqueNames(s.accounts, 'accounts', add)
  const subs = uniqueNames(s.subaccounts ?? [], 'subaccounts', add)
  const main = mainEntry(s)
  const subCurrency = main ? currencyOf(main) : 'USD'
  if (subs.size > 0 && subCurrency !== 'USD') add(['subaccounts'], `subaccounts need a USD main account; the first account is ${subCurrency}`)
  const amount = (path: PathKey[], value: string | number, currency: string) => {
    const minor = minorOf(value, currency)
    if (typeof minor === 'string') add(path, minor)
  }
  s.accounts.forEach((a, i) => a.balance !== undefined && amount(['accounts', i, 'balance'], a.balance, currencyOf(a)))
  s.subaccounts?.forEach((a, i) => a.balance !== undefined && amount(['subaccounts', i, 'balance'], a.balance, subCurrency))
  s.moves?.forEach((m, i) => {
    for (const side of ['from', 'to'] as const) if (!subs.has(m[side])) add(['moves', i, side], `no subaccount named "${m[side]}" in subaccounts`)
    if (m.from === m.to) add(['moves', i, 'to'], 'a move needs two different subaccounts')
    amount(['moves', i, 'amount'], m.amount, subCurrency)
  })
  s.transfers?.forEach((t, i) => checkTransfer(t, i, accounts, add, amount))
  const payers = new Set((s.payers ?? []).flatMap((p) => [p.name, p.email]))
  s.payins?.forEach((p, i) => {
    if (!payers.has(p.payer)) add(['payins', i, 'payer'], `no payer named "${p.payer}" (name or email) in payers`)
    amount(['payins', i, 'amount'], p.amount, 'USD')
  })
  s.bank_lines?.forEach((l, i) => {
    const account = accounts.get(l.account)
    if (!account) add(['bank_lines', i, 'account'], `no account named "${l.account}" in accounts`)
    else amount(['bank_lines', i, 'amount'], l.amount, currencyOf(account))
    if (l.subaccount === undefined) return
    if (!subs.has(l.subaccount)) add(['bank_lines', i, 'subaccount'], `no subaccount named "${l.subaccount}" in subaccounts`)
    else if (l.direction !== 'credit') add(['bank_lines', i, 'subaccount'], 'only a credit can be booked to a subaccount')
    else if (account && account !== main) add(['bank_lines', i, 'subaccount'], `a subaccount's credit arrives on the main account "${main?.name}"`)
  })
  return issues
}

function checkTransfer(
  t: NonNullable<Scenario['transfers']>[number],
  i: number,
  accounts: Map<string, Scenario['accounts'][number]>,
  add: (path: PathKey[], message: string) => void,
  amount: (path: PathKey[], value: string | number, currency: string) => void,
): void {
  const from = accounts.get(t.from)
  const to = accounts.get(t.to)
  if (!from) add(['transfers', i, 'from'], `no account named "${t.from}" in accounts`)
  if (!to) add(['transfers', i, 'to'], `no account named "${t.to}" in accounts`)
  if (t.from === t.to) add(['transfers', i, 'to'], 'a transfer needs two different accounts')
  if (!from || !to) return
  amount(['transfers', i, 'amount'], t.amount, currencyOf(from))
  const bothUsd = currencyOf(from) === 'USD' && currencyOf(to) === 'USD'
  if (!bothUsd && t.rail !== 'wire') add(['transfers', i, 'rail'], `${t.rail} needs two USD accounts; between ${currencyOf(from)} and ${currencyOf(to)} use wire`)
  if (t.status === 'canceled' && t.hold) add(['transfers', i, 'hold'], 'a canceled transfer has nothing to hold')
}

function uniqueNames<T extends {name: string}>(items: readonly T[], field: string, add: (path: PathKey[], message: string) => void): Map<string, T> {
  const seen = new Map<string, T>()
  items.forEach((item, i) => {
    if (seen.has(item.name)) add([field, i, 'name'], `"${item.name}" is named twice in ${field}`)
    else seen.set(item.name, item)
  })
  return seen
}
