import {ApiCommand} from '../../base-command.js'
import {WEBHOOK_COLUMNS, WEBHOOK_KNOWN} from '../../output/columns.js'

export default class WebhooksList extends ApiCommand<typeof WebhooksList> {
  static override areas = ['webhooks'] as const
  static override summary = 'List webhook endpoints (never their secrets).'
  static override examples = ['<%= config.bin %> webhooks list', '<%= config.bin %> webhooks list --all -o ndjson']
  static override flags = {...ApiCommand.listFlags}

  async run(): Promise<void> {
    const {limit, order, paginate} = this.listOptions()
    const api = await this.api()
    await this.renderList(api.webhooks.list({limit, order}, paginate), WEBHOOK_COLUMNS, WEBHOOK_KNOWN)
  }
}
