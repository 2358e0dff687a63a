import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {BaseCommand} from '../../base-command.js'
import {MAX_LABEL, MAX_NOTE} from '../../books/resolve.js'
import {runResolve} from '../../books/commands.js'

export default class ReconcileResolve extends BaseCommand<typeof ReconcileResolve> {
  static override summary = 'Record your decision on a reconciliation exception; it no longer counts.'
  static override description =
    'KEY is the `key` of a bank_only, transfer_only, stuck or amount_mismatch item a `payops reconcile` on this machine found: whole, or its short form (the start of its ids, as a table on a terminal shows it), or any start of either that names one item only. A key no reconciliation here found is exit 4; a start that names several items is exit 2; neither records anything. The decision is kept in the control store (controls.sqlite in the config dir, or the team store the profile names, stamped with your database role; a later one on the same key replaces it) and recorded in the audit trail. With a team store that cannot be reached, nothing is recorded (exit 7). Nothing is sent to the API.'
  static override examples = [
    '<%= config.bin %> reconcile resolve bank_only:BANK_LINE_ID --as fee --note "Wire fee, January"',
    '<%= config.bin %> reconcile resolve stuck:TRANSFER_ID --as chased --note "Bank ticket 4411"',
    '<%= config.bin %> reconcile resolve 4e327439 --as fee',
  ]
  static override args = {key: Args.string({description: 'the item\'s key, or its short key', required: true})}
  static override flags = {
    as: Flags.string({summary: `What it is (a label of your choosing, up to ${MAX_LABEL} characters: fee, outside_wire, timing, written_off…).`, required: true}),
    note: Flags.string({summary: `Why (up to ${MAX_NOTE} characters).`}),
    profile: Flags.string({char: 'p', summary: 'Profile recorded with the decision (PAYOPS_PROFILE; default: the active profile).', helpGroup: 'GLOBAL'}),
  }

  async run(): Promise<void> {
    await runResolve({key: this.args.key, label: this.flags.as, note: this.flags.note}, this.ctx)
  }
}
