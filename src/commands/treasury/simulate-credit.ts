import {Args, Flags} from '@oclif/core'
import {randomUUID} from 'node:crypto'
import {ApiCommand} from '../../base-command.js'
import {AuthError} from '../../errors.js'
import {moneyFlags, parseDate, parseMoneyFlags, optional} from '../../flags.js'
import {formatMoney} from '../../money.js'
import {SIMULATED_CREDIT_COLUMNS} from '../../output/columns.js'

export default class TreasurySimulateCredit extends ApiCommand<typeof TreasurySimulateCredit> {
  static override summary = 'Sandbox: simulate an inbound credit on a treasury account (or one of its subaccounts).'
  static override description = [
    'Works with test_ keys only: on a live_ key it is refused before any request (exit 3).',
    'The amount is in the account\'s own currency, learned from the account list; a --currency that differs is refused. standard_ach needs a USD account; wire credits any currency.',
    'Always sends an Idempotency-Key (the sandbox reference; generated when not given and printed on stderr): re-running with the same key returns the same credit instead of a second one, while the same key with different details is a conflict (exit 5).',
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
  }

  async run(): Promise<void> {
    if (this.isLive) {
      throw new AuthError('Refusing: treasury simulate-credit is a sandbox operation and this is a LIVE (live_) key. Use a test_ key. Nothing was sent.')
    }
    const f = this.flags
    const date = optional(f['transaction-date'], '--transaction-date', parseDate)
    const api = await this.api()
    const {minor, currency} = await api.treasury.resolveAmount(this.args.account, f, (fallback) => parseMoneyFlags(f, fallback))
    const key = f['idempotency-key'] ?? randomUUID()
    const amount = formatMoney(minor, currency)
    await this.confirmMutation({action: `Simulate an inbound ${f.rail} credit of ${amount}`, amount, to: f.subaccount ? `subaccount ${f.subaccount} of account ${this.args.account}` : this.args.account})
    this.out.note(`Idempotency-Key: ${key}${f['idempotency-key'] ? '' : '  (re-run with --idempotency-key to retry safely)'}`)
    const res = await api.treasury.simulateCredit(
      this.args.account,
      {rail: f.rail, amount_in_minor_units: minor, transaction_date: date, sender_info: f['sender-info'], subaccount_id: f.subaccount},
      key,
    )
    if (res.status === 200) this.out.note('Replayed: a credit already exists for this Idempotency-Key; nothing new was credited.')
    if (res.warning) this.out.warn(res.warning)
    await this.out.resource(res.data, SIMULATED_CREDIT_COLUMNS)
  }
}
