/**
 * `payops __complete WORD...`: what the shell scripts (scripts.ts) call on every TAB. It loads no
 * framework and makes no request: the grammar from the build's manifest, the values from the
 * config dir. bin/run.js calls it before anything else loads; src/entry.ts for in-process runs (it
 * is no oclif command: the line it reads is still being typed, and no oclif parser should see it).
 * Whatever goes wrong, the shell gets the error directive and offers nothing: a TAB never prints
 * an error into the line being typed.
 */
import {configDir} from '../config/index.js'
import {host} from '../context/host.js'
import {Completer, DIRECTIVE, formatCompletion} from './complete.js'
import {LocalSource} from './sources.js'
import {loadSpec} from './spec.js'

/** The hidden command's name, as the scripts call it. */
export const COMPLETE_COMMAND = '__complete'

/** Writes the completion of `words` (the line after `payops`, up to the cursor) to stdout. `root`: the package's folder. */
export function runCompletion(words: string[], root: string): void {
  const {io} = host()
  // `payops __complete … | head`: a reader that goes away ends the run quietly.
  host().endQuietlyOnClosedPipe()
  let text: string
  try {
    const completer = new Completer(loadSpec(root), new LocalSource(configDir(io.env), io.env))
    text = formatCompletion(completer.complete(words))
  } catch {
    text = `:${DIRECTIVE.error}\n`
  }
  io.stdout.write(text)
}
