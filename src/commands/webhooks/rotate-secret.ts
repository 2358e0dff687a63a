import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'

export default class WebhooksRotateSecret extends ApiCommand<typeof WebhooksRotateSecret> {
  static override areas = ['webhooks'] as const
  static override summary = 'Rotate an endpoint\'s signing secret through a twin endpoint.'
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
    const {runRotateSecret} = await import('../../webhooks/rotate.js')
    await runRotateSecret({id: this.args.id, replaceTwin: this.flags['replace-twin'], yes: this.flags.yes}, this.ctx)
  }
}
