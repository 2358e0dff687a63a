/** The bundled entry of bin/run.js: oclif's runner, from the same bundle as the commands. */
export {execute} from '@oclif/core'
