import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {parseInterval} from '../../controls/watch.js'
import {runWorker} from '../../team/worker.js'

export default class TeamWorker extends ApiCommand<typeof TeamWorker> {
  static override areas = ['moves', 'subaccounts', 'transfers', 'treasury'] as const
  static override summary = 'Carry out the team store\'s approved money requests, exactly once (run where the API key lives).'
  static override description = `Members without the key (\`profiles add NAME --team URL\`) record money requests in the team store;
another member approves each one (\`approvals review req-N\`). The worker, run under a profile with
the key bound to the store as a role granted payops_worker, carries out each request approved by a
member other than its maker, once, with the request's own Idempotency-Key, and records what became
of it in the store (\`approvals show req-N\`). A request approved by its own maker is never carried
out. Killed between sending and recording, the next pass finds out with the key and moves nothing
twice (a move is replayed by the API; a transfer is looked for in the list and sent again only when
the list shows it did not happen). Two workers at once never carry out one request twice.

--once does one pass: exit 0 when every request was carried out (or none awaited), 6 when some
failed, 1 when all failed, 7 when an outcome is unknown or the store cannot be reached.
--interval runs a pass every DURATION until Ctrl-C (exit 130). The approval recorded in the store
is the confirmation: the worker asks nothing, on LIVE keys too.`
  static override examples = ['<%= config.bin %> team worker --once --profile prod', '<%= config.bin %> team worker --interval 1m', '*/5 * * * * payops team worker --once --profile prod -o json >> /var/log/payops-worker.log 2>&1']
  static override flags = {
    once: Flags.boolean({summary: 'One pass, then exit.', exclusive: ['interval']}),
    interval: Flags.string({summary: 'A pass every DURATION (30s, 5m, 1h; default 1m) until Ctrl-C.'}),
  }

  async run(): Promise<void> {
    const intervalMs = this.flags.interval === undefined ? 60_000 : parseInterval(this.flags.interval)
    await runWorker({once: Boolean(this.flags.once), intervalMs}, this.ctx)
  }
}
