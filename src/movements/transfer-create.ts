/**
 * `transfers create`: one money request through the pipeline, then, with --wait, polling the
 * documented transfer list until the status is final (a spinner on a terminal, quiet otherwise).
 */
import type {AccountTransfer} from '../api/schemas/transfers.js'
import {WaitInterruptedError, WaitTimeoutError, isFinalTransferStatus} from '../api/transfers.js'
import type {CommandContext} from '../context/index.js'
import {TRANSFER_COLUMNS, TRANSFER_KNOWN} from '../output/columns.js'
import {renderOutcome, runOne, type GuardFlags} from './command.js'
import type {MovementRequest} from './types.js'

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

export async function runTransferCreate(opts: TransferCreateOptions, ctx: CommandContext, spinner?: Spinner): Promise<void> {
  let outcome = await runOne(ctx, opts.guard, opts.request)
  let transfer = outcome.resource as AccountTransfer
  if (outcome.http_status === 202) {
    ctx.out.note(`Accepted (202): transfer ${transfer.id} is ${transfer.status}; processing continues${opts.wait ? '' : ' (use --wait to follow it)'}.`)
  }
  if (opts.wait && !isFinalTransferStatus(transfer.status)) {
    transfer = await follow(transfer, opts, ctx, spinner)
    await outcome.observe?.(transfer as unknown as Record<string, unknown>)
    // The table, the sentence and the outcome line all tell the state the wait ended in.
    outcome = outcome.restate?.(transfer as unknown as Record<string, unknown>) ?? outcome
  }
  await renderOutcome(ctx, outcome, TRANSFER_COLUMNS, TRANSFER_KNOWN, transfer)
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
    if (outcome === 'awaiting_approval') ctx.out.note(`Transfer ${last.id} is created and awaits approval (\`payops transfers approve ${last.id}\`); nothing to wait for.`)
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
