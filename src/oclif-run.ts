/**
 * oclif's full runner (help, topics, plugins, command-not-found), loaded only by the lines that
 * need it: payops' own commands run without it (see entry.ts).
 */
export {run} from '@oclif/core/run'
