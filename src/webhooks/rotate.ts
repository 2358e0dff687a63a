/**
 * `webhooks rotate-secret`: the spec's rotation as a small state machine over the webhooks API and
 * the pending-rotation file in the config dir. Create (or, on a re-run, reuse or replace) a twin
 * endpoint, show its new secret once, then delete the old endpoint when confirmed (--yes, or a
 * yes at a terminal); otherwise keep it and say how to finish.
 */
import type {Api} from '../api/index.js'
import type {WebhookEndpoint} from '../api/schemas/webhooks.js'
import type {CommandContext} from '../context/index.js'
import {ApiError, ResponseError} from '../errors.js'
import {createdEndpoint, noSecretSentence} from '../api/webhooks.js'
import {confirmMutation} from '../movements/command.js'
import {ROTATION_COLUMNS} from '../output/columns.js'
import {RotationState} from './rotation-state.js'

export interface RotateOptions {
  /** The endpoint whose secret to rotate. */
  id: string
  /** Discard the twin of an interrupted rotation and create a fresh one. */
  replaceTwin?: boolean
  /** Delete the old endpoint without asking. */
  yes?: boolean
}

const isNotFound = (err: unknown) => err instanceof ApiError && err.status === 404

export async function runRotateSecret(opts: RotateOptions, ctx: CommandContext): Promise<void> {
  const {out} = ctx
  const oldId = opts.id
  const api = await ctx.api(['webhooks'])
  const baseUrl = api.client.baseUrl.href
  const state = new RotationState(ctx.configDir)
  const pending = state.find(baseUrl, oldId)

  let old: WebhookEndpoint
  try {
    old = (await api.webhooks.get(oldId)).data
  } catch (err) {
    if (pending && isNotFound(err)) {
      state.remove(baseUrl, oldId)
      out.note(`Endpoint ${oldId} is already deleted: the rotation finished earlier. The new endpoint is ${pending.new_id}.`)
      await out.resource({old_id: oldId, new_id: pending.new_id, url: null, secret: null, old_deleted: true}, ROTATION_COLUMNS)
      return
    }
    throw err
  }

  await confirmMutation(ctx, {yes: opts.yes}, {
    action: `Rotate the signing secret of webhook endpoint ${oldId}`,
    details: {url: old.url, steps: 'create a twin endpoint, show its new secret, then delete the old endpoint'},
  })

  const {twin, secret} = await twinOf(ctx, api, state, old, oldId, pending, opts.replaceTwin)

  // At a terminal the secret is shown before the question, so that it can be stored first.
  const askFirst = !opts.yes && ctx.prompter.interactive
  if (secret && askFirst) {
    await out.writeLine(`New signing secret of ${twin.id}: ${secret}`)
    out.note(out.paint.yellow('Store it now; it is not shown again.'))
  }

  let deleted = false
  let failure: unknown
  if (opts.yes || (askFirst && (await ctx.prompter.confirm(`Your receiver now accepts the new secret? Delete the old endpoint ${oldId} now?`)))) {
    try {
      await api.webhooks.delete(oldId)
      deleted = true
      state.remove(baseUrl, oldId)
    } catch (err) {
      if (isNotFound(err)) {
        deleted = true
        state.remove(baseUrl, oldId)
      } else failure = err
    }
  }

  await out.resource({old_id: oldId, new_id: twin.id, url: twin.url, secret: askFirst ? null : (secret ?? null), old_deleted: deleted}, ROTATION_COLUMNS)
  if (secret && !askFirst) out.note(out.paint.yellow(`New signing secret of ${twin.id}: store it now; it is not shown again.`))
  if (failure) throw failure
  if (deleted) out.note(`Rotation complete: ${oldId} deleted; ${twin.id} receives the events from now on.`)
  else out.note(`The old endpoint ${oldId} is kept (both endpoints receive events). Once your receiver uses the new secret, run: payops webhooks rotate-secret ${oldId} --yes`)
}

type Pending = ReturnType<RotationState['find']>

/**
 * The twin endpoint: the interrupted rotation's (its secret no longer shown), or a fresh one made
 * like the old endpoint (its secret shown once), after deleting the old twin with --replace-twin.
 */
async function twinOf(ctx: CommandContext, api: Api, state: RotationState, old: WebhookEndpoint, oldId: string, pending: Pending, replaceTwin?: boolean): Promise<{twin: WebhookEndpoint; secret?: string}> {
  const {out} = ctx
  if (pending && replaceTwin) {
    await api.webhooks.delete(pending.new_id).catch((err: unknown) => {
      if (!isNotFound(err)) throw err
    })
    out.note(`Deleted the twin ${pending.new_id} of the interrupted rotation; creating a fresh one.`)
  } else if (pending) {
    const twin = await api.webhooks.get(pending.new_id).then(
      (r) => r.data,
      (err: unknown) => {
        if (isNotFound(err)) return undefined
        throw err
      },
    )
    if (twin) {
      out.warn(
        `Resuming an interrupted rotation: the twin ${twin.id} already exists. Its secret was shown when it was created and cannot be shown again. If you did not store it, re-run with --replace-twin to get a fresh twin and secret.`,
      )
      return {twin}
    }
  }
  const res = await api.webhooks.create({url: old.url, event_types: old.event_types, description: old.description ?? undefined})
  const made = createdEndpoint(res.data)
  if (!made.id) throw new ResponseError(`${noSecretSentence(undefined)} The rotation cannot go on without the twin's id; the old endpoint ${oldId} is kept.`, res.status, res.requestId)
  state.save({base_url: api.client.baseUrl.href, old_id: oldId, new_id: made.id, created_at: new Date(ctx.clock.now()).toISOString()})
  let twin = {...made.config, id: made.id} as WebhookEndpoint
  const secret = made.secret
  if (!secret) out.warn(noSecretSentence(made.id))
  if (!old.is_active) twin = (await api.webhooks.setActive(twin.id, false)).data
  return {twin, secret}
}
