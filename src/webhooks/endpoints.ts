/**
 * The webhook endpoint commands: `webhooks get`, `list`, `create`, `update`, `delete`, `enable`,
 * `disable` and `event-types`. A change is confirmed first (on a LIVE key); a new endpoint's
 * signing secret is shown once.
 */
import type {WebhookCreateInput, WebhookUpdateInput} from '../api/webhooks.js'
import type {CommandContext} from '../context/index.js'
import type {GuardFlags} from '../movements/command.js'
import {confirmMutation} from '../confirm.js'
import {EVENT_TYPE_COLUMNS, WEBHOOK_COLUMNS, WEBHOOK_CREATED_COLUMNS, WEBHOOK_KNOWN} from '../output/columns.js'
import {listing, showAnswer, type ListOptions} from '../output/show.js'

export async function runWebhookGet(opts: {id: string}, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(['webhooks'])
  await showAnswer(ctx.out, await api.webhooks.get(opts.id), WEBHOOK_KNOWN, WEBHOOK_KNOWN)
}

export async function runWebhooksList(opts: {list: ListOptions}, ctx: CommandContext): Promise<void> {
  const l = listing(opts.list)
  const api = await ctx.api(['webhooks'])
  await l.show(ctx.out, api.webhooks.list({limit: l.limit, order: l.order}, l.paginate), WEBHOOK_COLUMNS, WEBHOOK_KNOWN)
}

export async function runEventTypes(_opts: object, ctx: CommandContext): Promise<void> {
  const api = await ctx.api(['webhooks'])
  await ctx.out.list(await api.webhooks.eventTypes(), EVENT_TYPE_COLUMNS)
}

export async function runWebhookCreate(opts: {input: WebhookCreateInput; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  const {out} = ctx
  const {input} = opts
  const {validateWebhookCreate, createdEndpoint, noSecretSentence} = await import('../api/webhooks.js')
  validateWebhookCreate(input)
  await confirmMutation(ctx, opts.guard, {action: `Create webhook endpoint ${input.url}`, details: {events: input.event_types.join(', ')}})
  const api = await ctx.api(['webhooks'])
  const res = await api.webhooks.create(input)
  if (res.warning) out.warn(res.warning)
  const made = createdEndpoint(res.data)
  await out.resource({...made.config, id: made.id ?? null, secret: made.secret ?? null}, WEBHOOK_CREATED_COLUMNS)
  if (made.secret) out.note(out.paint.yellow(`Signing secret of ${made.id ?? 'the new endpoint'}: store it now; it is not shown again.`))
  else out.warn(noSecretSentence(made.id))
}

export async function runWebhookUpdate(opts: {id: string; input: WebhookUpdateInput; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  const {input} = opts
  const {validateWebhookUpdate} = await import('../api/webhooks.js')
  validateWebhookUpdate(input)
  await confirmMutation(ctx, opts.guard, {
    action: `Update webhook endpoint ${opts.id}`,
    details: {url: input.url, events: input.event_types?.join(', '), description: input.description},
  })
  const api = await ctx.api(['webhooks'])
  await showAnswer(ctx.out, await api.webhooks.update(opts.id, input), WEBHOOK_KNOWN, WEBHOOK_KNOWN)
}

export async function runWebhookDelete(opts: {id: string; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  await confirmMutation(ctx, opts.guard, {action: `Delete webhook endpoint ${opts.id}`})
  const api = await ctx.api(['webhooks'])
  const res = await api.webhooks.delete(opts.id)
  if (res.warning) ctx.out.warn(res.warning)
  if (res.data) await ctx.out.resource(res.data, WEBHOOK_COLUMNS, WEBHOOK_KNOWN)
  ctx.out.note(`Deleted webhook endpoint ${opts.id}.`)
}

/** `webhooks enable` and `disable`. */
export async function runWebhookActive(opts: {id: string; active: boolean; guard: GuardFlags}, ctx: CommandContext): Promise<void> {
  await confirmMutation(ctx, opts.guard, {action: `${opts.active ? 'Enable' : 'Disable'} webhook endpoint ${opts.id}`})
  const api = await ctx.api(['webhooks'])
  await showAnswer(ctx.out, await api.webhooks.setActive(opts.id, opts.active), WEBHOOK_COLUMNS, WEBHOOK_KNOWN)
}
