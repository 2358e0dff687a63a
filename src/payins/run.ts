/** `payins get`: one payin, read and shown. */
import type {CommandContext} from '../context/index.js'
import {PAYIN_COLUMNS, PAYIN_KNOWN} from '../output/columns.js'
import {showAnswer} from '../output/show.js'

export async function runPayinGet(opts: {id: string}, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(['payins'])
  await showAnswer(ctx.out, await api.payins.get(opts.id), [...PAYIN_COLUMNS, PAYIN_KNOWN.find((c) => c.key === 'end_to_end_id')!], PAYIN_KNOWN)
}
