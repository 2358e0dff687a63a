import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../base-command.js'
import {RAW_METHODS, type RawMethod} from '../api/raw.js'
import {runApi} from '../movements/raw-command.js'

export default class ApiRaw extends ApiCommand<typeof ApiRaw> {
  static override areas = ['raw'] as const
  static override summary = 'Call any endpoint with the profile\'s key and print the JSON response.'
  static override description = [
    'Fields as in gh: -f/--raw-field key=value sends the value as a string; -F/--field key=value converts true, false, null and numbers, and reads @FILE (or @- for stdin) as a string. For GET and DELETE the fields become query parameters; otherwise they form a JSON body. (The long names were once the other way round: --field now converts, as in gh; -f and -F are unchanged.)',
    '--paginate follows next_cursor and prints every item of `data`. Non-GET calls on a LIVE key ask for confirmation. A call that moves money (move create, approve and cancel, transfer create and approve, simulated credits) goes through the same checks as the dedicated commands: the profile\'s limits, the typed LIVE confirmation with the amount, an Idempotency-Key (yours from -H, else a new one) and the audit trail; other -H headers and query strings are refused on those calls.',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> api GET /api/subaccounts/SUB_ID',
    '<%= config.bin %> api POST /api/subaccounts -f name=Payroll',
    '<%= config.bin %> api GET /api/subaccounts/SUB_ID/activity -F limit=100 --paginate -o ndjson',
    'echo \'{"name":"Ops"}\' | <%= config.bin %> api POST /api/subaccounts --input -',
  ]
  static override args = {
    method: Args.string({description: 'HTTP method', required: true, options: [...RAW_METHODS, ...RAW_METHODS.map((m) => m.toLowerCase())]}),
    path: Args.string({description: 'path beginning with /, e.g. /api/subaccounts/ID', required: true}),
  }
  static override flags = {
    'raw-field': Flags.string({char: 'f', summary: 'String field key=value, sent as a string (repeatable).', multiple: true}),
    field: Flags.string({char: 'F', summary: 'Typed field key=value: numbers, true/false/null, @FILE (repeatable).', multiple: true}),
    input: Flags.string({summary: 'Request body from FILE, or - for stdin.', exclusive: ['field', 'raw-field']}),
    header: Flags.string({char: 'H', summary: 'Extra header "Name: value" (repeatable).', multiple: true}),
    paginate: Flags.boolean({summary: 'Follow next_cursor and print every item of data.'}),
    'send-anyway': Flags.boolean({summary: 'A transfer or credit create whose earlier answer was lost: send it even if it may make a second.'}),
  }

  async run(): Promise<void> {
    const f = this.flags
    const opts = {
      method: this.args.method.toUpperCase() as RawMethod,
      path: this.args.path,
      rawFields: f['raw-field'],
      typedFields: f.field,
      input: f.input,
      headers: f.header,
      paginate: f.paginate,
      sendAnyway: f['send-anyway'],
      guard: this.guardInput,
    }
    await runApi(opts, this.ctx)
  }
}
