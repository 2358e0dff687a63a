/**
 * The confirmation of a mutation that moves no money, for the resource areas whose reads share a
 * file with their writes: the guard's code (movements/command.ts and what it imports) loads when a
 * mutation runs, so a one-shot read never loads it.
 */
import type {CommandContext} from './context/index.js'
import type {GuardFlags} from './movements/command.js'
import type {Summary} from './movements/types.js'

export async function confirmMutation(ctx: CommandContext, flags: GuardFlags, summary: Summary, opts: {evenOnTest?: boolean} = {}): Promise<void> {
  const command = await import('./movements/command.js')
  return command.confirmMutation(ctx, flags, summary, opts)
}
