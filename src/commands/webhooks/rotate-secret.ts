import {Args, Flags} from '@oclif/core'
import {ApiCommand} from '../../base-command.js'
import {confirmMutation} from '../../movements/command.js'
import {ApiError} from '../../errors.js'
import {configDir} from '../../config/index.js'
import {ROTATION_COLUMNS} from '../../output/columns.js'
import {RotationState} from '../../webhooks/rotation-state.js'
import type {WebhookEndpoint} from '../../api/schemas/webhooks.js'

const isNotFound = (err: unknown) => err instanceof ApiError && err.status === 404

export default class WebhooksRotateSecret extends ApiCommand<typeof WebhooksRotateSecret> {
  static override areas = ['webhooks'] as const
  static override summary = 'Rotate an endpoint\'s signing secret: create a twin, show its secret, then delete the old endpoint.'
  static override description = [
    'The spec\'s rotation: a twin endpoint with the same URL, description, event types and activation is created and its new secret printed (once). Events keep going to both endpoints until the old one is deleted, so run your receiver with both secrets (`webhooks listen --secret OLD --secret NEW`), then confirm the deletion.',
    'The old endpoint is deleted with --yes, or after you confirm at a terminal; without a terminal and without --yes it is kept and the command tells you to re-run with --yes. The pending rotation is remembered in the config dir (webhook-rotations.json), so a re-run reuses the twin instead of creating a second one; the twin\'s secret cannot be shown again then, and --replace-twin deletes that twin and makes a fresh one with a new secret.',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> webhooks rotate-secret WEBHOOK_ID',
    '<%= config.bin %> webhooks rotate-secret WEBHOOK_ID -o json            # phase 1 in a script: twin + secret, old kept',
    '<%= config.bin %> webhooks rotate-secret WEBHOOK_ID --yes -o json      # phase 2: delete the old endpoint',
  ]
  static override args = {id: Args.string({description: 'webhook endpoint id whose secret to rotate', required: true})}
  static override flags = {
    'replace-twin': Flags.boolean({summary: 'Discard the twin of an interrupted rotation and create a fresh one (its secret is shown).'}),
  }

  async run(): Promise<void> {
    const oldId = this.args.id
    const api = await this.api()
    const baseUrl = api.client.baseUrl.href
    const state = new RotationState(configDir())
    const pending = state.find(baseUrl, oldId)

    let old: WebhookEndpoint
    try {
      old = (await api.webhooks.get(oldId)).data
    } catch (err) {
      if (pending && isNotFound(err)) {
        state.remove(baseUrl, oldId)
        this.out.note(`Endpoint ${oldId} is already deleted: the rotation finished earlier. The new endpoint is ${pending.new_id}.`)
        await this.out.resource({old_id: oldId, new_id: pending.new_id, url: null, secret: null, old_deleted: true}, ROTATION_COLUMNS)
        return
      }
      throw err
    }

    await confirmMutation(this.ctx, this.flags, {
      action: `Rotate the signing secret of webhook endpoint ${oldId}`,
      details: {url: old.url, steps: 'create a twin endpoint, show its new secret, then delete the old endpoint'},
    })

    let twin: WebhookEndpoint | undefined
    let secret: string | undefined
    if (pending) {
      if (this.flags['replace-twin']) {
        await api.webhooks.delete(pending.new_id).catch((err: unknown) => {
          if (!isNotFound(err)) throw err
        })
        this.out.note(`Deleted the twin ${pending.new_id} of the interrupted rotation; creating a fresh one.`)
      } else {
        twin = await api.webhooks.get(pending.new_id).then(
          (r) => r.data,
          (err: unknown) => {
            if (isNotFound(err)) return undefined
            throw err
          },
        )
        if (twin) {
          this.out.warn(
            `Resuming an interrupted rotation: the twin ${twin.id} already exists. Its secret was shown when it was created and cannot be shown again. If you did not store it, re-run with --replace-twin to get a fresh twin and secret.`,
          )
        }
      }
    }
    if (!twin) {
      const res = await api.webhooks.create({url: old.url, event_types: old.event_types, description: old.description ?? undefined})
      state.save({base_url: baseUrl, old_id: oldId, new_id: res.data.id, created_at: new Date().toISOString()})
      const {secret: newSecret, ...config} = res.data
      twin = config as WebhookEndpoint
      secret = newSecret
      if (!old.is_active) twin = (await api.webhooks.setActive(twin.id, false)).data
    }

    const askFirst = !this.flags.yes && this.ctx.prompter.interactive
    if (secret && askFirst) {
      process.stdout.write(`New signing secret of ${twin.id}: ${secret}\n`)
      this.out.note(this.out.paint.yellow('Store it now; it is not shown again.'))
    }

    let deleted = false
    let failure: unknown
    if (this.flags.yes || (askFirst && (await this.ctx.prompter.confirm(`Your receiver now accepts the new secret? Delete the old endpoint ${oldId} now?`)))) {
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

    await this.out.resource({old_id: oldId, new_id: twin.id, url: twin.url, secret: askFirst ? null : (secret ?? null), old_deleted: deleted}, ROTATION_COLUMNS)
    if (secret && !askFirst) this.out.note(this.out.paint.yellow(`New signing secret of ${twin.id}: store it now; it is not shown again.`))
    if (failure) throw failure
    if (deleted) this.out.note(`Rotation complete: ${oldId} deleted; ${twin.id} receives the events from now on.`)
    else this.out.note(`The old endpoint ${oldId} is kept (both endpoints receive events). Once your receiver uses the new secret, run: payops webhooks rotate-secret ${oldId} --yes`)
  }
}
