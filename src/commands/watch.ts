import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../base-command.js'
import {parseInterval, runWatch} from '../controls/watch.js'

export default class Watch extends ApiCommand<typeof Watch> {
  static override areas = ['subaccounts', 'transfers', 'treasury'] as const
  static override summary = 'Check the profile\'s watch rules; alert when one is crossed (--once for cron).'
  static override description = [
    'Rules are kept in the profile: `payops profiles set NAME watch RULE ARGS...` with min-balance SUBACCOUNT_ID AMOUNT CURRENCY, transfer-failed, transfer-stuck HOURS, approval-waiting HOURS or reconcile-exceptions ACCOUNT_ID; `profiles unset NAME watch [RULE [ID]]` removes them.',
    'An alert fires when a rule is crossed and re-arms when it clears (the state is kept in the control store, per key: controls.sqlite in the config dir, or the team store the profile names, shared by the team so that the watches of two members fire an alert once; an unreachable team store is exit 7): a condition that holds is reported once. Each alert is one JSON line on stdout (one sentence on a terminal); --exec CMD runs CMD with the alert JSON on its stdin, --post URL sends it signed with the secret in PAYOPS_WATCH_SECRET (X-Webhook-Signature: hex HMAC-SHA256 of `{timestamp}.{body}`, X-Webhook-Timestamp, as the service signs its webhooks).',
    'With --once it exits 9 when an alert fired, 0 when none did (1 when a rule could not be checked).',
  ].join('\n\n')
  static override examples = ['<%= config.bin %> watch --once -o json', '<%= config.bin %> watch --interval 5m --exec ./page-oncall.sh', 'PAYOPS_WATCH_SECRET=... <%= config.bin %> watch --interval 1m --post https://alerts.example.com/payops']
  static override flags = {
    once: Flags.boolean({summary: 'Check once and exit: 9 when an alert fired, 0 when none did.', exclusive: ['interval']}),
    interval: Flags.string({summary: 'Check every DURATION (30s, 5m, 1h; default 1m) until Ctrl-C.'}),
    exec: Flags.string({summary: 'Run CMD (through the shell) for each alert, with the alert JSON on its stdin.'}),
    post: Flags.string({summary: 'POST each alert to URL (https://, or http:// to loopback), signed with PAYOPS_WATCH_SECRET.'}),
  }

  async run(): Promise<void> {
    const intervalMs = this.flags.interval === undefined ? 60_000 : parseInterval(this.flags.interval)
    await runWatch({once: Boolean(this.flags.once), intervalMs, exec: this.flags.exec, post: this.flags.post}, this.ctx)
  }
}
