import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../../base-command.js'
import {amountInput, moneyFlags, parseKeyValues} from '../../flags.js'
import {runMoveCreate} from '../../movements/commands.js'

export default class MovesCreate extends ApiCommand<typeof MovesCreate> {
  static override areas = ['moves', 'subaccounts'] as const
  static override summary = 'Move money between two subaccounts (settles at once unless --no-auto-approve).'
  static override description =
    'Always sends an Idempotency-Key (generated when not given, printed on stderr): re-running with the same key can never move money twice, and a key that already names another move is refused (exit 5). The amount is parsed exactly in the source subaccount\'s currency; a --currency that differs from it is refused. After the move, stderr says what happened: created by this run, replayed (made earlier, nothing moved now) or advanced (an earlier move settled now); with -o json|ndjson|csv as one line {"outcome":{...}}.'
  static override examples = [
    '<%= config.bin %> moves create --from SUB_A --to SUB_B --amount 125.50',
    '<%= config.bin %> moves create --from SUB_A --to SUB_B --amount-minor 12550 --no-auto-approve --metadata invoice=INV-7',
  ]
  static override flags = {
    from: Flags.string({summary: 'Source subaccount id.', required: true, aliases: ['from-subaccount-id']}),
    to: Flags.string({summary: 'Destination subaccount id.', required: true, aliases: ['to-subaccount-id']}),
    ...moneyFlags,
    'auto-approve': Flags.boolean({summary: 'Approve and settle in the same request (--no-auto-approve leaves it created).', default: true, allowNo: true}),
    metadata: Flags.string({summary: 'client_metadata entry key=value (repeatable).', multiple: true}),
    'idempotency-key': Flags.string({summary: 'Idempotency-Key to send (default: a new UUID, printed on stderr).'}),
    ...ApiCommand.guardFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const request = {
      kind: 'move.create' as const,
      from: f.from,
      to: f.to,
      amount: amountInput(f),
      currency: f.currency,
      autoApprove: f['auto-approve'],
      metadata: parseKeyValues(f.metadata, '--metadata'),
      idempotencyKey: f['idempotency-key'],
    }
    await runMoveCreate({request, guard: this.guardInput}, this.ctx)
  }
}
