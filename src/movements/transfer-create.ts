/**
 * `transfers create`: one money request through the pipeline, then, with --wait, polling the
 * documented transfer list until the status is final (a spinner on a terminal, quiet otherwise).
 */
import type {AccountTransfer} from '../api/schemas/transfers.js'
import {WaitInterruptedError, WaitTimeoutError, isFinalTransferStatus} from '../api/transfers.js'
import type {CommandContext} from '../context/index.js'
import {TRANSFER_COLUMNS, TRANSFER_KNOWN} from '../output/columns.js'
import {renderOutcome, runOne, type GuardFlags} from './command.js'
import {makerCheckerFor} from './maker-checker.js'
import {awaitingPhrase} from './sentence.js'
import {OutcomeUnknownError} from '../errors.js'
import {describeCandidate, inspectCommand, searchTransfers} from './search.js'
import type {MovementRequest, Outcome} from './types.js'

export interface TransferCreateOptions {
  request: Extract<MovementRequest, {kind: 'transfer.create'}>
  guard: GuardFlags
  wait: boolean
  waitTimeoutSec: number
  pollIntervalMs: number
}

/** A spinner on stderr while waiting; none in tests or without a terminal. */
export type {Spinner} from '../output/spinner.js'
import type {Spinner} from '../output/spinner.js'

/** `transfers create`: the transfer sent, with a spinner on a terminal while --wait follows it. */
export async function runTransferCreateCommand(opts: TransferCreateOptions, ctx: CommandContext): Promise<void> {
  const {terminalSpinner} = await import('../output/spinner.js')
  await runTransferCreate(opts, ctx, ctx.io.stderrIsTTY ? terminalSpinner(ctx.io.stderr) : undefined)
}

export async function runTransferCreate(opts: TransferCreateOptions, ctx: CommandContext, spinner?: Spinner): Promise<void> {
  const started = ctx.clock.now()
  let outcome = await runOne(ctx, opts.guard, opts.request)
  // Requested by a member without the key: nothing was sent, so there is nothing to follow.
  if (outcome.kind === 'requested') return renderOutcome(ctx, outcome, TRANSFER_COLUMNS, TRANSFER_KNOWN)
  let transfer = outcome.resource as AccountTransfer
  if (outcome.http_status === 202 && outcome.id) {
    ctx.out.note(`Accepted (202): transfer ${transfer.id} is ${transfer.status ?? 'in a state the answer did not give'}; processing continues${opts.wait ? '' : ' (use --wait to follow it)'}.`)
  }
  if (opts.wait && !(typeof transfer.status === 'string' && isFinalTransferStatus(transfer.status))) {
    // Accepted without an id (a 202 with no body): found in the list first, then followed.
    if (!outcome.id) transfer = await identify(outcome, opts, ctx, started)
    transfer = await follow(transfer, opts, ctx, spinner)
    await outcome.observe?.(transfer as unknown as Record<string, unknown>)
    // The table, the sentence and the outcome line all tell the state the wait ended in.
    outcome = outcome.restate?.(transfer as unknown as Record<string, unknown>) ?? outcome
  }
  await renderOutcome(ctx, outcome, TRANSFER_COLUMNS, TRANSFER_KNOWN, transfer)
}

/** How far before this run's start a transfer's created_at may lie and still be this request's (clock skew). */
const SKEW_MS = 60_000

/**
 * The transfer an answer without an id accepted, found in the list: the one carrying this
 * request's key or, where the list shows no keys, the only one with the same accounts, amount and
 * currency created since this run started. Polls until --wait-timeout; several that could be it
 * end with exit 7, naming them.
 */
async function identify(outcome: Outcome, opts: TransferCreateOptions, ctx: CommandContext, started: number): Promise<AccountTransfer> {
  const api = await ctx.api(['transfers'])
  const r = opts.request
  const res = outcome.resource
  const minor = Number(res.amount_in_minor_units)
  const currency = String(res.currency_code ?? r.currency).toUpperCase()
  const deadline = ctx.clock.now() + opts.waitTimeoutSec * 1000
  for (;;) {
    const seen = await searchTransfers(api, r, outcome.idempotency_key ?? '', minor, currency, {since: started})
    if (seen.found) return seen.found as AccountTransfer
    const fresh = seen.candidates.filter((t) => Date.parse(String(t.created_at ?? '')) >= started - SKEW_MS)
    if (fresh.length === 1) {
      ctx.out.note(`Following transfer ${String(fresh[0].id)}: the only one listed with these accounts, amount and currency since this run started (the list shows no key).`)
      return fresh[0] as AccountTransfer
    }
    if (fresh.length > 1) {
      throw new OutcomeUnknownError(`The transfer was accepted, but the list shows ${fresh.length} that could be it and no key to tell them apart: ${fresh.map((t) => describeCandidate('account transfer', t)).join('; ')}. Nothing more was sent.`, inspectCommand(r, started))
    }
    if (ctx.clock.now() >= deadline) {
      throw new OutcomeUnknownError(`Timed out after ${opts.waitTimeoutSec}s waiting for the accepted transfer to be listed; it was made (the API accepted it) and goes on. Nothing more was sent. Find it with: ${inspectCommand(r, started)}`, inspectCommand(r, started))
    }
    await ctx.clock.sleep(opts.pollIntervalMs)
  }
}

async function follow(transfer: AccountTransfer, opts: TransferCreateOptions, ctx: CommandContext, spinner?: Spinner): Promise<AccountTransfer> {
  const api = await ctx.api(['transfers'])
  spinner?.start(`Waiting for transfer ${transfer.id}`, transfer.status)
  const stop = new AbortController()
  const unsubscribe = ctx.onInterrupt(() => stop.abort())
  try {
    const {transfer: last, outcome} = await api.transfers.waitFor(transfer, {
      timeoutMs: opts.waitTimeoutSec * 1000,
      intervalMs: opts.pollIntervalMs,
      sleep: ctx.clock.sleep,
      now: ctx.clock.now,
      signal: stop.signal,
      onStatus: (t) => spinner?.status(t.status),
    })
    spinner?.stop(last.status)
    if (outcome === 'awaiting_approval') {
      // Under maker-checker its maker is not told to approve it (that is refused): a checker does.
      const checker = makerCheckerFor(ctx.profile.limitSets, last.amount_in_minor_units, last.currency_code)
      ctx.out.note(`Transfer ${last.id} is created, ${awaitingPhrase('account transfer', last.id, checker)}; nothing to wait for.`)
    }
    return last
  } catch (err) {
    spinner?.stop(err instanceof WaitInterruptedError ? 'stopped' : 'timed out')
    // The last state seen is printed either way; exit 7 (timeout) or 130 (Ctrl-C).
    if (err instanceof WaitTimeoutError || err instanceof WaitInterruptedError) await ctx.out.resource(err.last, TRANSFER_COLUMNS, TRANSFER_KNOWN)
    throw err
  } finally {
    unsubscribe()
  }
}
