import {Flags} from '@oclif/core'
import {randomUUID} from 'node:crypto'
import {ApiCommand} from '../../base-command.js'
import {MOVE_COLUMNS, MOVE_KNOWN} from '../../output/columns.js'
import {moneyFlags, parseKeyValues, parseMoneyFlags} from '../../flags.js'
import {formatMoney, toDecimalString} from '../../money.js'
import {PartialError} from '../../errors.js'

export default class MovesCreate extends ApiCommand<typeof MovesCreate> {
  static override summary = 'Move money between two subaccounts (settles at once unless --no-auto-approve).'
  static override description =
    'Always sends an Idempotency-Key (generated when not given, printed on stderr): re-running with the same key can never move money twice. With --amount the decimal is parsed exactly in the source subaccount\'s currency; a --currency that differs from it is refused.'
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
    const api = await this.api()
    const {minor, currency} = await api.moves.resolveAmount(f.from, f, (fallback) => parseMoneyFlags(f, fallback), this.movementNeedsDetails)
    const key = f['idempotency-key'] ?? randomUUID()
    const input = {
      from_subaccount_id: f.from,
      to_subaccount_id: f.to,
      amount_in_minor_units: minor,
      auto_approve: f['auto-approve'],
      client_metadata: parseKeyValues(f.metadata, '--metadata'),
    }
    await this.confirmMovement(
      {
        action: `Move ${formatMoney(minor, currency)}${f['auto-approve'] ? '' : ' (created, not approved)'}`,
        amount: formatMoney(minor, currency),
        from: f.from,
        to: f.to,
      },
      [{amount_in_minor_units: minor, currency, to: f.to}],
      toDecimalString(minor, currency),
    )
    this.out.note(`Idempotency-Key: ${key}${f['idempotency-key'] ? '' : '  (re-run with --idempotency-key to retry safely)'}`)
    const res = await api.moves.create(input, key)
    if (res.status === 200) this.out.note(`Replayed: a move already exists for this Idempotency-Key (status ${res.data.status}); nothing new was moved.`)
    await this.out.resource(res.data, MOVE_COLUMNS, MOVE_KNOWN)
    if (res.status === 207 || res.warning) this.out.warn(res.warning ?? 'the API reported a partial success')
    if (res.status === 207) throw new PartialError(`Move ${res.data.id} was created but not settled (status ${res.data.status}).`)
  }
}
