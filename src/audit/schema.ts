/**
 * Where the audit trail is kept: the tables `trail`, `trail_head` and `trail_imports` of the
 * control store's file (`controls.sqlite`, src/control/sqlite-schema.ts), named apart so that
 * completion reads the trail without loading the writer or the control store's code.
 */
export {CONTROLS_FILE as TRAIL_FILE, CONTROLS_SCHEMA as TRAIL_SCHEMA} from '../control/sqlite-schema.js'
