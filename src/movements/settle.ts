/**
 * When the answer to a money request is lost. The spec promises idempotency for move create only,
 * so only a move create is sent again (by the client, with its key); every other request is not,
 * and payops finds out instead:
 * - the exact command that settles an outcome that stays unknown (exit 7);
 * - an answer that shows the state asked for ("cannot be canceled in status canceled" after a
 *   cancel, "in status settled" after an approve, a duplicate sandbox reference after a simulated
 *   credit whose answer was lost) is what it is: the movement is in that state, nothing changed now.
 * Pure: the audit trail comes in as the History port.
 */
import {ApiError, OutcomeUnknownError} from '../errors.js'
import {systemClock} from '../context/host.js'
import {formatMoney} from '../money.js'
import {KEY_METADATA} from '../api/transfers.js'
import type {History, LostAnswer, MovementRequest, Plan} from './types.js'

/** An argument as a POSIX shell reads it back: bare when safe, else single-quoted. */
export function shellArg(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

const cmd = (...parts: Array<string | false | undefined>) => parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' ')
const flag = (name: string, v: string | number | undefined | null) => (v === undefined || v === null ? undefined : `${name} ${shellArg(String(v))}`)

/** The UTC date of `now`, as the API defaults a credit's transaction_date. */
export const utcDate = (now: number) => new Date(now).toISOString().slice(0, 10)

/**
 * The command that settles a lost answer: for creates the same request with the same key (what it
 * then does is told by {@link unknownOutcome}); for approve and cancel the same request again,
 * which the API refuses once the state is reached.
 */
export function settleCommand(r: MovementRequest, d: {key: string | null; minor?: number; currency?: string | null; now: number}): string {
  switch (r.kind) {
    case 'move.create':
      return cmd(
        'payops moves create',
        flag('--from', r.from),
        flag('--to', r.to),
        flag('--amount-minor', d.minor),
        !r.autoApprove && '--no-auto-approve',
        ...Object.entries(r.metadata ?? {}).map(([k, v]) => flag('--metadata', `${k}=${v}`)),
        flag('--idempotency-key', d.key),
      )
    case 'transfer.create': {
      const {[KEY_METADATA]: _own, ...metadata} = r.metadata ?? {}
      return cmd(
        'payops transfers create',
        flag('--from', r.from),
        flag('--to', r.to),
        flag('--amount-minor', d.minor),
        flag('--currency', d.currency ?? r.currency),
        flag('--rail', r.rail),
        !r.autoApprove && '--no-auto-approve',
        flag('--scheduled-date', r.scheduledDate),
        Object.keys(metadata).length > 0 && flag('--metadata-json', JSON.stringify(metadata)),
        flag('--idempotency-key', d.key),
      )
    }
    case 'credit.simulate':
      return cmd(
        'payops treasury simulate-credit',
        shellArg(r.account),
        flag('--rail', r.rail),
        flag('--amount-minor', d.minor),
        flag('--subaccount', r.subaccount),
        flag('--sender-info', r.senderInfo),
        // Pinned: the API's default is the current UTC date, which a later re-run would change.
        flag('--transaction-date', r.transactionDate ?? utcDate(d.now)),
        flag('--idempotency-key', d.key),
      )
    case 'move.approve':
      return cmd('payops moves approve', shellArg(r.id))
    case 'move.cancel':
      return cmd('payops moves cancel', shellArg(r.id))
    case 'transfer.approve':
      return cmd('payops transfers approve', shellArg(r.id))
  }
}

/** What the failure was, for the message and the audit trail. */
function causeOf(err: unknown): {status?: number; errorCode?: string; requestId?: string; code?: string} {
  const e = err as {status?: unknown; errorCode?: unknown; requestId?: unknown; code?: unknown}
  return {
    status: typeof e.status === 'number' ? e.status : undefined,
    errorCode: typeof e.errorCode === 'string' ? e.errorCode : undefined,
    requestId: typeof e.requestId === 'string' ? e.requestId : undefined,
    code: typeof e.code === 'string' ? e.code : undefined,
  }
}

/** The error of a money request whose answer was lost and could not be found out: exit 7, naming the command that settles it. */
export function unknownOutcome(err: unknown, p: Plan, opts: {looked?: boolean; since?: number} = {}): OutcomeUnknownError {
  const first = (err instanceof Error ? err.message : String(err)).replace(/\.?\s*$/, '.')
  return new OutcomeUnknownError(`${first} ${unknownExplanation(p, opts)}`, p.settle, causeOf(err))
}

/** What is unknown after a lost answer, and the exact command that finds out. */
export function unknownExplanation(p: Plan, opts: {looked?: boolean; since?: number} = {}): string {
  const r = p.request
  let what: string
  switch (r.kind) {
    case 'move.create':
      what = p.batchRow
        ? 'It is unknown whether the move was made. Re-run the same import: it sends this row again with the same Idempotency-Key, which finds out and finishes it if it was not made (the API answers a repeat with the move it names, never a second one).'
        : `It is unknown whether the move was made. Find out, and finish it if it was not, with the same Idempotency-Key (the API answers a repeat with the move it names, never a second one): ${p.settle}`
      break
    case 'transfer.create': {
      const since = new Date((opts.since ?? systemClock.now()) - 5 * 60_000).toISOString()
      const looked = opts.looked ? 'it is not (yet) in the transfer list, which may show a new transfer late' : 'the transfer list could not be read'
      what =
        `It is unknown whether the account transfer was made: it was not sent again (the spec promises no idempotency for it), and ${looked}. ` +
        `Find out with: payops transfers list --account ${shellArg(r.from)} --created-at-gte ${since} -o json (a transfer made by this request carries client_metadata.${KEY_METADATA} = ${p.idempotencyKey} where the list shows client_metadata, and has this request's accounts, amount and currency); ` +
        `or re-run: ${p.settle} (it looks in the list first, and sends only when the list shows no transfer that could be this one; otherwise it names them and sends nothing).`
      break
    }
    case 'credit.simulate':
      what =
        `It is unknown whether the account was credited: the credit was not sent again, and a bank line carries nothing that ties it to this request. ` +
        `Find out with: ${p.settle} (it reads the account's bank lines first and sends nothing when one could be this credit, naming them; otherwise it sends the same sandbox reference once).`
      break
    case 'move.approve':
      what = `It is unknown whether move ${r.id} was approved; it was not sent again. Find out with: ${p.settle} (a second approve is refused, never settled twice: "cannot be approved in status settled" is reported as settled).`
      break
    case 'move.cancel':
      what = `It is unknown whether move ${r.id} was canceled; it was not sent again. Find out with: ${p.settle} (a second cancel is refused: "cannot be canceled in status canceled" is reported as canceled).`
      break
    case 'transfer.approve':
      what = `It is unknown whether account transfer ${r.id} was approved; it was not sent again. Find out with: ${p.settle} (a second approve is refused: "cannot be approved in status approved" or later is reported as approved)${p.audit.from ? `, or see its status in: payops transfers list --account ${shellArg(p.audit.from)}` : ''}.`
      break
  }
  return what
}

/** The state a 400 names: "move cannot be canceled in status canceled" -> `canceled`. */
export function stateInRefusal(message: string): string | undefined {
  const m = /cannot be (?:approved|canceled|cancelled)\b[^"'`\w]*(?:in|from|with)\s+(?:its\s+current\s+)?(?:status|state)\s*[:=]?\s*["'`]?([A-Za-z_]+)/i.exec(message)
  const s = m?.[1]?.toLowerCase()
  return s === 'cancelled' ? 'canceled' : s
}

/** The states in which an approve or a cancel has nothing left to do: what was asked is done. */
const DONE: Partial<Record<MovementRequest['kind'], readonly string[]>> = {
  'move.cancel': ['canceled'],
  'move.approve': ['settled'],
  'transfer.approve': ['approved', 'initiated', 'debited', 'settled'],
}

/** An answer that shows that what was asked is already so, read as what it is. */
export interface AlreadyDone {
  resource: Record<string, unknown>
  status: string | null
  sentence: string
  /** The earlier request of this machine that did it, as the trail recorded it. */
  earlier?: LostAnswer
}

const at = (time: string) => time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')

/**
 * Reads a refusal as the state it shows: a cancel refused because the move is canceled, an approve
 * refused because the move is settled (or the transfer approved or further), a simulated credit
 * refused as a duplicate sandbox reference that this machine's earlier request with the same key
 * and amount used (its answer was lost). Anything else is left as the error it is.
 */
export function alreadyDone(p: Plan, err: unknown, history: History): AlreadyDone | undefined {
  if (!(err instanceof ApiError)) return undefined
  const r = p.request
  if (r.kind === 'credit.simulate') return creditAlreadyMade(p, err, history)
  if (err.status !== 400 || !(r.kind in DONE) || !('id' in r)) return undefined
  const state = stateInRefusal(err.message)
  if (!state || !DONE[r.kind]!.includes(state)) return undefined
  const earlier = history.lostAnswer?.(p.audit.method, p.audit.path)
  const verb = r.kind === 'move.cancel' ? 'cancel' : 'approve'
  const did = r.kind === 'move.cancel' ? 'canceled the move' : r.kind === 'move.approve' ? 'settled the move' : 'approved the transfer'
  // The trail knows this machine's earlier attempt; it cannot know whether another request came first.
  const by = earlier
    ? ` The ${verb} this machine sent at ${at(earlier.time)} lost its answer; it took effect, unless another request ${did} first.`
    : ` It was ${r.kind === 'move.cancel' ? 'canceled' : r.kind === 'move.approve' ? 'settled' : 'approved'} before this request.`
  // The amount as this machine recorded it (the API cannot show one move).
  const known = history.byResource(r.id)
  const minor = p.audit.amount_in_minor_units ?? known?.amount_in_minor_units ?? null
  const currency = p.audit.currency_code ?? known?.currency_code ?? null
  const money = minor !== null && currency ? ` (${formatMoney(minor, currency)})` : ''
  let sentence: string
  if (r.kind === 'move.cancel') sentence = `Move ${r.id}${money} is already canceled: it will not move money. Nothing was changed now.${by}`
  else if (r.kind === 'move.approve') sentence = `Move ${r.id}${money} is already settled. Nothing was moved now.${by}`
  else sentence = `Account transfer ${r.id}${money} is already approved (${state} now). Nothing was changed now.${by}`
  return {resource: {id: r.id, status: state}, status: state, sentence, earlier}
}

function creditAlreadyMade(p: Plan, err: ApiError, history: History): AlreadyDone | undefined {
  const key = p.idempotencyKey
  // A generated key is new: a 409 on it cannot be this machine's earlier request.
  if (err.status !== 409 || !key || p.keyGenerated) return undefined
  const same = (k: {amount_in_minor_units?: number | null; to?: string | null} | undefined) =>
    k !== undefined && k.amount_in_minor_units === p.audit.amount_in_minor_units && (k.to ?? null) === p.audit.to
  const money = formatMoney(p.audit.amount_in_minor_units ?? 0, p.audit.currency_code ?? undefined)
  const resource = {bank_transaction_id: null, amount_in_minor_units: p.audit.amount_in_minor_units, currency_code: p.audit.currency_code, direction: 'credit'}
  const made = history.byKey(key)
  if (made && same(made)) {
    return {
      resource: {...resource, bank_transaction_id: made.id ?? null},
      status: 'credit',
      sentence: `Already credited: sandbox reference ${key} was used by simulated credit ${made.id} (${money} to ${p.audit.to}), made earlier from this machine; the API refuses it as a duplicate. Nothing was credited now.`,
    }
  }
  const earlier = history.lostAnswer?.(p.audit.method, p.audit.path, key)
  if (!earlier || !same(earlier)) return undefined
  return {
    resource,
    status: 'credit',
    earlier,
    sentence: `Already credited: the simulated credit of ${money} to ${p.audit.to} this machine sent at ${at(earlier.time)} with sandbox reference ${key} took effect (its answer was lost); the API refuses the reference as a duplicate now. Nothing was credited now.`,
  }
}
