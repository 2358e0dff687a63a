/** `--state FILE`: loading a state, converting a JSON state of an earlier payops, and the file written through. */
export {StateFile, WRITE_CHUNK, RETRY_MS, RETRY_MAX_MS} from './state-file.js'
export {loadState} from './load.js'
export {loadJsonState, StateShape} from './json-state.js'
export {IMPORT_FLAG, convertHint} from './files.js'
export {STATE_SCHEMA} from './write.js'
