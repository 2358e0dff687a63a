import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {STATEMENT_FORMATS} from '../../books/bankfiles/formats.js'
import {runStatement} from '../../books/commands.js'

export default class ReportStatement extends ApiCommand<typeof ReportStatement> {
  static override areas = ['treasury', 'transfers', 'subaccounts'] as const
  static override summary = 'Month-end statement of an account or subaccount: opening, lines, closing.'
  static override description = [
    'Each line carries its reconciliation status (as `payops reconcile` over the month sees it, with your decisions). -o json prints one object with opening_balance_in_minor_units, closing_balance_in_minor_units, currency_code and lines; -o csv and tables show an opening row, the lines with the running balance, and a closing row; --format ofx writes an OFX 1.0.2 bank statement that accounting software imports; --format camt053, bai2 or mt940 writes the bank\'s own statement formats (ISO 20022 camt.053.001.08, BAI2, SWIFT MT940) with the same opening and closing balances.',
    'The closing balance is derived from the current balance (an account: GET …/balance; a subaccount: its totals) less what is dated after the month, so it is exact only when nothing is later booked into a month already reported. See "The books" in the README.',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> report statement --account ACCOUNT_ID --month 2026-03',
    '<%= config.bin %> report statement --subaccount SUB_ID --month 2026-03 --bank-account ACCOUNT_ID -o csv',
    '<%= config.bin %> report statement --account ACCOUNT_ID --month 2026-03 --format ofx > march.ofx',
    '<%= config.bin %> report statement --account ACCOUNT_ID --month 2026-03 --format camt053 > march.xml',
  ]
  static override flags = {
    account: Flags.string({summary: 'Treasury account id.', exactlyOne: ['account', 'subaccount']}),
    subaccount: Flags.string({summary: 'Subaccount id.', exactlyOne: ['account', 'subaccount']}),
    'bank-account': Flags.string({summary: 'With --subaccount: the treasury account its bai2 credits arrive on (gives them a reconciliation status).'}),
    month: Flags.string({summary: 'The month (YYYY-MM).', required: true}),
    currency: Flags.string({summary: 'With --subaccount: the currency its amounts are in, when the API does not name one (must match when it does).'}),
    format: Flags.option({summary: 'Write the statement in this file format instead of -o.', options: STATEMENT_FORMATS})(),
  }

  async run(): Promise<void> {
    const f = this.flags
    await runStatement({account: f.account, subaccount: f.subaccount, bankAccount: f['bank-account'], currency: f.currency, month: f.month, format: f.format}, this.ctx)
  }
}
