import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {RECONCILE_COLUMNS, RECONCILE_FITTED_COLUMNS, RECONCILE_KNOWN} from '../../books/columns.js'
import {parseDay} from '../../books/dates.js'
import {DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS, exceptionsLine, reconcile, summaryLine} from '../../books/reconcile.js'
import {ExceptionsFound} from '../../errors.js'

export default class Reconcile extends ApiCommand<typeof Reconcile> {
  static override areas = ['treasury', 'transfers', 'subaccounts'] as const
  static override summary = 'Match an account\'s bank lines against its transfers and bank credits.'
  static override description = [
    'Reads the bank lines of the account, the account transfers in and out of it and the bai2 credits of the subaccounts given with --subaccount, over --from..--to widened by --window days, and matches them one to one: same currency, exact amount, same direction, smallest date gap first.',
    'Each item has a kind: matched, bank_only (a bank line nothing announced: a fee, an outside wire), transfer_only (a settled transfer or credit with no bank line once the window has passed), stuck (a transfer still approved or initiated past its rail\'s usual window: 1 day, 3 for standard_ach), amount_mismatch (same day and counterparty, another amount) or pending (not due yet); and a stable key for `payops reconcile resolve`. A table on a terminal shows a short key (the start of the item\'s ids, unique among the items seen here), which `reconcile resolve` takes as well; --wide shows whole keys.',
    'Exit 0 when no exception remains, 9 when any does (one line on stderr), so it runs from cron. -o json prints one object {account_id, from, to, summary, items}.',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> reconcile ACCOUNT_ID --from 2026-01-01 --to 2026-01-31',
    '<%= config.bin %> reconcile ACCOUNT_ID --from 2026-01-01 --to 2026-01-31 --window 5 --subaccount SUB_ID -o json',
  ]
  static override args = {account: Args.string({description: 'treasury account id', required: true})}
  static override flags = {
    from: Flags.string({summary: 'First day of the period (YYYY-MM-DD, inclusive).', required: true}),
    to: Flags.string({summary: 'Last day of the period (YYYY-MM-DD, inclusive).', required: true}),
    window: Flags.integer({summary: `Days a bank line may lie from what it matches (0 to ${MAX_WINDOW_DAYS}).`, default: DEFAULT_WINDOW_DAYS, min: 0, max: MAX_WINDOW_DAYS}),
    subaccount: Flags.string({summary: 'A subaccount of the account whose bai2 credits are expected on it (repeatable).', multiple: true}),
    'hide-matched': Flags.boolean({summary: 'List only what did not match (matched items are still counted in the summary).'}),
  }

  /** It reads whole lists, page after page: the connection pool, as --all does. */
  protected override get transportKind(): 'fetch' | 'pool' {
    return 'pool'
  }

  async run(): Promise<void> {
    const f = this.flags
    const from = parseDay(f.from, '--from')
    const to = parseDay(f.to, '--to')
    const report = await reconcile({account: this.args.account, from, to, window: f.window, subaccounts: [...new Set(f.subaccount ?? [])], hideMatched: f['hide-matched']}, this.ctx)
    if (this.out.format === 'json') await this.out.value(report)
    else {
      // On a terminal the key is the short one (--wide: the whole key); both are what `reconcile resolve` takes.
      await this.out.list(report.items as unknown as Array<Record<string, unknown>>, this.out.fitted ? RECONCILE_FITTED_COLUMNS : RECONCILE_COLUMNS, RECONCILE_KNOWN)
      if (this.out.format === 'table') this.out.note(summaryLine(report))
    }
    if (report.summary.exceptions > 0) throw new ExceptionsFound(exceptionsLine(report))
  }
}
