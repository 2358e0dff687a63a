import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {TRANSFER_RAILS} from '../../api/schemas/transfers.js'
import {amountInput, moneyFlags, parseDate, parseMetadata, optional} from '../../flags.js'
import {runTransferCreateCommand} from '../../movements/transfer-create.js'

export default class TransfersCreate extends ApiCommand<typeof TransfersCreate> {
  static override areas = ['transfers', 'treasury'] as const
  static override summary = 'Transfer funds between two treasury accounts.'
  static override description = [
    '--currency is required and must be the source account\'s currency (read from the account list: another one is refused before sending); --amount is parsed exactly with its minor-unit exponent.',
    'Always carries an Idempotency-Key (generated when not given, printed on stderr) in client_metadata.payops_idempotency_key. The spec promises no idempotency for a transfer, so a create whose answer was lost is never sent again: payops looks for the key in the transfer list (found: exit 0; not found: exit 7, naming the command that finds out). Re-running with --idempotency-key looks in the source account\'s transfers first and sends nothing when the key is there (or when this machine\'s audit trail shows it answered); a listed transfer with other accounts, amount, currency or rail is refused (exit 5). A re-run after a lost answer sends only when the list, read to its end, shows no transfer with the same accounts, amount and currency around that time that could be it; otherwise it lists them and exits 7, sending nothing (--send-anyway sends all the same, at the risk of a second transfer).',
    '--metadata k=v sends string values; --metadata-json \'{...}\' sends a JSON object whose values may be any JSON (numbers, booleans, objects), merged with --metadata (a key in both is refused).',
    'With auto-approval (the default) the transfer is approved and initiated at once; when the API answers 202 (async initiation) it continues in the background. --wait polls the transfer list until the status is final (settled, failed, canceled), with a spinner on a terminal; --wait-timeout ends the wait with exit 7 and Ctrl-C with exit 130, the last state printed either way.',
  ].join('\n')
  static override examples = [
    '<%= config.bin %> transfers create --from ACC_USD --to ACC_USD_2 --amount 1500.00 --currency USD --rail same_day_ach',
    '<%= config.bin %> transfers create --from ACC_USD --to ACC_GBP --amount-minor 250000 --currency USD --rail wire --wait',
    '<%= config.bin %> transfers create --from ACC_USD --to ACC_USD_2 --amount 99.50 --currency USD --rail wire --metadata po=PO-7 --metadata-json \'{"invoice": {"id": 42, "paid": true}}\'',
  ]
  static override flags = {
    from: Flags.string({summary: 'Source treasury account id.', required: true, aliases: ['from-account-id']}),
    to: Flags.string({summary: 'Destination treasury account id.', required: true, aliases: ['to-account-id']}),
    amount: moneyFlags.amount,
    'amount-minor': moneyFlags['amount-minor'],
    currency: Flags.string({summary: 'ISO 4217 currency: the source account\'s currency.', required: true, aliases: ['currency-code']}),
    rail: Flags.option({summary: 'Payment rail.', options: TRANSFER_RAILS, required: true})(),
    'auto-approve': Flags.boolean({summary: 'Approve and initiate in the same request (--no-auto-approve leaves it created).', default: true, allowNo: true}),
    'scheduled-date': Flags.string({summary: 'Send day YYYY-MM-DD (America/New_York); default: immediate.'}),
    metadata: Flags.string({summary: 'client_metadata entry key=value, a string value (repeatable).', multiple: true}),
    'metadata-json': Flags.string({summary: 'client_metadata as a JSON object, values of any JSON type (merged with --metadata).'}),
    'idempotency-key': Flags.string({summary: 'Idempotency-Key to send (default: a new UUID, printed on stderr).'}),
    'send-anyway': Flags.boolean({summary: 'Send even though this key\'s earlier attempt lost its answer and the transfer list cannot show that it did not happen: this may make a second transfer.'}),
    wait: Flags.boolean({summary: 'Poll until the status is final (settled, failed, canceled); Ctrl-C stops waiting (exit 130).'}),
    'wait-timeout': Flags.integer({summary: 'Seconds --wait may take before exit 7.', default: 60, min: 1}),
    'poll-interval': Flags.integer({summary: 'Milliseconds between two polls of --wait.', default: 1000, min: 50}),
    ...ApiCommand.guardFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const request = {
      kind: 'transfer.create' as const,
      from: f.from,
      to: f.to,
      amount: amountInput(f),
      currency: f.currency,
      rail: f.rail,
      autoApprove: f['auto-approve'],
      scheduledDate: optional(f['scheduled-date'], '--scheduled-date', parseDate),
      // A transfer's client_metadata is string -> any JSON (the spec), unlike a move's string -> string.
      metadata: parseMetadata(f.metadata, f['metadata-json']),
      idempotencyKey: f['idempotency-key'],
      sendAnyway: f['send-anyway'],
    }
    await runTransferCreateCommand({request, guard: this.guardInput, wait: f.wait, waitTimeoutSec: f['wait-timeout'], pollIntervalMs: f['poll-interval']}, this.ctx)
  }
}

