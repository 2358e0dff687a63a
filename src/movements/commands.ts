/**
 * The money commands' behaviour: `moves create`, `cancel` and `approve`, `transfers approve` and
 * `treasury simulate-credit` send one request (or a batch) through the movement pipeline and
 * render its outcome (`transfers create` is in transfer-create.ts, `moves import` in src/import/).
 */
import type {CommandContext} from '../context/index.js'
import {MOVE_COLUMNS, MOVE_KNOWN, SIMULATED_CREDIT_COLUMNS, TRANSFER_COLUMNS, TRANSFER_KNOWN} from '../output/columns.js'
import {renderOutcome, runBatch, runOne, type GuardFlags} from './command.js'
import type {MovementRequest} from './types.js'

type Request<K extends MovementRequest['kind']> = Extract<MovementRequest, {kind: K}>

export async function runMoveCreate(opts: {request: Request<'move.create'>; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  const outcome = await runOne(ctx, opts.guard, opts.request)
  await renderOutcome(ctx, outcome, MOVE_COLUMNS, MOVE_KNOWN)
}

export async function runMoveCancel(opts: {id: string; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  const outcome = await runOne(ctx, opts.guard, {kind: 'move.cancel', id: opts.id})
  await renderOutcome(ctx, outcome, MOVE_COLUMNS, MOVE_KNOWN)
}

export async function runMovesApprove(opts: {ids: string[]; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  const {ids} = opts
  await runBatch(ctx, opts.guard, ids.map((id) => ({kind: 'move.approve' as const, id})), {action: `Approve and settle ${ids.length} move${ids.length === 1 ? '' : 's'}`}, 'approve')
}

export async function runTransferApprove(opts: {id: string; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  const outcome = await runOne(ctx, opts.guard, {kind: 'transfer.approve', id: opts.id})
  await renderOutcome(ctx, outcome, TRANSFER_COLUMNS, TRANSFER_KNOWN)
}

export async function runSimulateCredit(opts: {request: Request<'credit.simulate'>; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  const outcome = await runOne(ctx, opts.guard, opts.request)
  await renderOutcome(ctx, outcome, SIMULATED_CREDIT_COLUMNS)
}
