import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {parseInterval} from '../../controls/watch.js'
import {runWorker} from '../../team/worker.js'

export default class TeamWorker extends ApiCommand<typeof TeamWorker> {
  static override areas = ['moves', 'subaccounts', 'transfers', 'treasury'] as const
  static override summary = 'Carry out the team store\'s approved requests, once (where the API key lives).'
  static override description = `Carries out each money request of the team store (made by members without the key,
\`profiles add NAME --team URL\`) approved by a member other than its maker, once, with the
request's own Idempotency-Key, and records the outcome in the store (\`approvals show req-N\`).
Run it under the profile with the key, bound to the store as a role granted payops_worker.
A request approved by its own maker is never carried out; two workers at once never carry one
out twice. Killed between sending and recording, the next pass finds out with the key: a move
is replayed by the API; a transfer is sent again only when the list shows it did not happen.

--once: one pass; exit 0 when all were carried out (or none awaited), 6 when some failed, 1 when
all failed, 7 when an outcome is unknown or the store cannot be reached. --interval: a pass every
DURATION until Ctrl-C (exit 130). The store's approval is the confirmation: the worker asks
nothing, on LIVE keys too. Cron: */5 * * * * payops team worker --once --profile prod`
  static override examples = ['<%= config.bin %> team worker --once --profile prod', '<%= config.bin %> team worker --interval 1m']
  static override flags = {
    once: Flags.boolean({summary: 'One pass, then exit.', exclusive: ['interval']}),
    interval: Flags.string({summary: 'A pass every DURATION (30s, 5m, 1h; default 1m) until Ctrl-C.'}),
  }

  async run(): Promise<void> {
    const intervalMs = this.flags.interval === undefined ? 60_000 : parseInterval(this.flags.interval)
    await runWorker({once: Boolean(this.flags.once), intervalMs}, this.ctx)
  }
}
