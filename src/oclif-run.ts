/**
 * oclif's full runner (help, topics, plugins, command-not-found), loaded only by the lines that
 * need it: payops' own commands run without it (see entry.ts and own-command.ts).
 *
 * oclif's Config and Help are bundled here, not with the commands: the build (scripts/build.mjs,
 * LAZY_REQUIRES) makes oclif's Command and error handler take them from this registry on first use,
 * so a command line that never comes here neither loads nor parses them.
 */
import * as config from '@oclif/core/config'
import * as help from '@oclif/core/help'
import {run as oclifRun} from '@oclif/core/run'

const registry = globalThis as Record<symbol, unknown>
registry[Symbol.for('payops.oclif.config')] = config
registry[Symbol.for('payops.oclif.help')] = help

export const run = oclifRun
