import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS} from '../../books/reconcile.js'
import {runReconcile} from '../../books/commands.js'

export default class Reconcile extends ApiCommand<typeof Reconcile> {
  static override areas = ['treasury', 'transfers', 'subaccounts'] as const
  static override summary = 'Match an account\'s bank lines against its transfers and bank credits.'
  static override description = [
    'Reads the bank lines of the account, the account transfers in and out of it and the bai2 credits of the subaccounts given with --subaccount, over --from..--to widened by --window days, and matches them one to one: same currency, exact amount, same direction, smallest date gap first.',
    'Each item has a kind: matched, bank_only (a bank line nothing announced: a fee, an outside wire), transfer_only (a settled transfer or credit with no bank line once the window has passed), stuck (a transfer still approved or initiated past its rail\'s usual window: 1 day, 3 for standard_ach), amount_mismatch (same day and counterparty, another amount) or pending (not due yet); and a stable key for `payops reconcile resolve`. On a terminal a short key (unique among the items seen here), which `reconcile resolve` takes too; --wide shows whole keys.',
    'With --statement FILE the bank lines come from the bank\'s own file instead of the API: BAI2, camt.053 (or camt.052, camt.054) or MT940, recognised by content. A malformed file is exit 2, naming the record and line; it must be the account\'s (its number ends with the last four digits) in its currency. Without --from/--to the period is the file\'s. A file given again counts once (content and statement id).',
    'Exit 0 when no exception remains, 9 when any does (one line on stderr), so it runs from cron. -o json prints one object {account_id, from, to, summary, items} (and bank_files with --statement).',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> reconcile ACCOUNT_ID --from 2026-01-01 --to 2026-01-31',
    '<%= config.bin %> reconcile ACCOUNT_ID --from 2026-01-01 --to 2026-01-31 --window 5 --subaccount SUB_ID -o json',
    '<%= config.bin %> reconcile ACCOUNT_ID --statement 2026-03-02.bai2',
  ]
  static override args = {account: Args.string({description: 'treasury account id', required: true})}
  static override flags = {
    from: Flags.string({summary: 'First day of the period (YYYY-MM-DD, inclusive; with --statement, the file\'s first day by default).'}),
    to: Flags.string({summary: 'Last day of the period (YYYY-MM-DD, inclusive; with --statement, the file\'s last day by default).'}),
    statement: Flags.string({summary: 'Read the bank lines from this BAI2, camt.052/053/054 or MT940 file instead of the API (repeatable).', multiple: true}),
    window: Flags.integer({summary: `Days a bank line may lie from what it matches (0 to ${MAX_WINDOW_DAYS}).`, default: DEFAULT_WINDOW_DAYS, min: 0, max: MAX_WINDOW_DAYS}),
    subaccount: Flags.string({summary: 'A subaccount of the account whose bai2 credits are expected on it (repeatable).', multiple: true}),
    'hide-matched': Flags.boolean({summary: 'List only what did not match (matched items are still counted in the summary).'}),
  }

  /** It reads whole lists, page after page: the connection pool, as --all does. */
  protected override get transportKind(): 'http' | 'pool' {
    return 'pool'
  }

  async run(): Promise<void> {
    const f = this.flags
    const opts = {account: this.args.account, from: f.from, to: f.to, statements: f.statement ?? [], window: f.window, subaccounts: [...new Set(f.subaccount ?? [])], hideMatched: f['hide-matched']}
    await runReconcile(opts, this.ctx)
  }
}
