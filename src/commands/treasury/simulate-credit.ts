import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {amountInput, moneyFlags, parseDate, optional} from '../../flags.js'
import {runSimulateCredit} from '../../movements/commands.js'

export default class TreasurySimulateCredit extends ApiCommand<typeof TreasurySimulateCredit> {
  static override areas = ['treasury'] as const
  static override summary = 'Sandbox: simulate an inbound credit on a treasury account or its subaccount.'
  static override description = [
    'Works with test_ keys only: on a live_ key it is refused before any request (exit 3).',
    'The amount is in the account\'s own currency, learned from the account list; a --currency that differs is refused. standard_ach needs a USD account; wire credits any currency.',
    'Always sends an Idempotency-Key (the sandbox reference; generated when not given and printed on stderr). A reference is used once: the API refuses a repeat as a duplicate (409, exit 5). A credit whose answer was lost is never sent again: exit 7 names the same request with the same reference, whose duplicate refusal is then reported as already credited (exit 0) when this machine sent the lost one.',
  ].join('\n')
  static override examples = [
    '<%= config.bin %> treasury simulate-credit ACCOUNT_ID --rail wire --amount 2500.00 --sender-info "Globex Corp"',
    '<%= config.bin %> treasury simulate-credit ACCOUNT_ID --rail standard_ach --amount-minor 1500 --subaccount SUB_ID',
  ]
  static override args = {account: Args.string({description: 'simulated treasury account id', required: true})}
  static override flags = {
    rail: Flags.option({summary: 'Rail of the simulated credit.', options: ['standard_ach', 'wire'] as const, required: true})(),
    ...moneyFlags,
    subaccount: Flags.string({summary: 'Credit this subaccount of the account instead of the account itself.', aliases: ['subaccount-id']}),
    'sender-info': Flags.string({summary: 'Sender shown on the inbound activity (at most 200 characters).'}),
    'transaction-date': Flags.string({summary: 'Transaction date YYYY-MM-DD (default: today, UTC).'}),
    'idempotency-key': Flags.string({summary: 'Sandbox reference sent as Idempotency-Key (default: a new UUID, printed on stderr).', aliases: ['reference']}),
    'send-anyway': Flags.boolean({summary: 'Send even though this key\'s earlier attempt lost its answer and the account shows a credit that could be it: this may credit twice.'}),
    ...ApiCommand.guardFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const request = {
      kind: 'credit.simulate' as const,
      account: this.args.account,
      rail: f.rail,
      amount: amountInput(f),
      currency: f.currency,
      subaccount: f.subaccount,
      senderInfo: f['sender-info'],
      transactionDate: optional(f['transaction-date'], '--transaction-date', parseDate),
      idempotencyKey: f['idempotency-key'],
      sendAnyway: f['send-anyway'],
    }
    await runSimulateCredit({request, guard: this.guardInput}, this.ctx)
  }
}
