import * as Flags from '@oclif/core/flags'
import {ApiCommand} from '../base-command.js'
import {runApprovals} from '../movements/approvals.js'

export default class Approvals extends ApiCommand<typeof Approvals> {
  static override areas = ['moves', 'subaccounts', 'transfers', 'treasury'] as const
  static override summary = 'What awaits approval: created account transfers and the moves held here.'
  static override description = [
    'Account transfers awaiting approval come from the service. The API cannot list moves, so the moves shown are those this machine created without auto-approval (moves create, import rows, api) that no later record shows approved, settled or canceled; they are labelled "local". With a team store bound to the key, the store\'s undecided requests of every member are listed too (labelled "team", with the database role that requested each), and what the store shows decided leaves the list.',
    'On a terminal (table output) it offers a checkbox list with amounts and names and approves the chosen ones through the same checks as moves approve and transfers approve: the profile\'s limits, and on LIVE the total typed. Otherwise it prints the list, e.g. for `payops approvals -o json | jq -r \'.[] | select(.kind=="move") | .id\' | payops moves approve -`.',
  ].join('\n\n')
  static override examples = ['<%= config.bin %> approvals', '<%= config.bin %> approvals --kind transfers -o json']
  static override flags = {
    kind: Flags.option({summary: 'Only moves or only transfers.', options: ['moves', 'transfers'] as const})(),
    ...ApiCommand.guardFlags,
  }

  async run(): Promise<void> {
    const k = this.flags.kind
    await runApprovals({moves: k !== 'transfers', transfers: k !== 'moves', guard: this.flags}, this.ctx)
  }
}
