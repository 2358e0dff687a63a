/**
 * The `command_not_found` hook (in place of @oclif/plugin-not-found, which asks "Did you mean ...?"
 * on a terminal and runs the suggestion on Enter, and exits 127 otherwise). A mistyped command
 * never runs: one line names it and the closest command, and the exit code is 2 (usage).
 */
import type {Config, Hook} from '@oclif/core'
import {classify} from '../base-command.js'
import {UsageError} from '../errors.js'
import {editDistance} from '../flags.js'
import {FORMATS, Output, defaultFormat, type Format} from '../output/index.js'
import {colorEnabled} from '../output/color.js'
import {host} from '../context/host.js'

/** Optimal string alignment distance, shared with the flag suggestions (src/flags.ts). */
export {editDistance}

/**
 * The typed words to name as unknown and the closest command or topic (as words), if any is close.
 * `words` are the words oclif took as the command id (`moves craete`, or `subaccounts gte ID` when
 * an argument follows a mistyped command).
 */
export function suggest(words: string[], config: Pick<Config, 'commands' | 'topics'>): {known: string[]; unknown: string[]; suggestion?: string[]} {
  const visible = config.commands.filter((c) => !c.hidden)
  const ids = new Set([...visible.map((c) => c.id), ...visible.flatMap((c) => c.aliases ?? [])])
  const topics = new Set(config.topics.filter((t) => !t.hidden).map((t) => t.name))
  // The words up to and including the first one that is neither a topic nor a command.
  let known = 0
  while (known < words.length && topics.has(words.slice(0, known + 1).join(':'))) known++
  const unknown = words.slice(0, Math.min(known + 1, words.length))

  // `payops moves help` -> `payops help moves`
  if (words.includes('help')) return {known: words.slice(0, known), unknown, suggestion: ['help', ...words.slice(0, known)]}
  let best: {parts: string[]; distance: number} | undefined
  for (const candidate of [...ids, ...topics]) {
    const parts = candidate.split(':')
    // Only what corrects the unknown word: not the topics already typed right.
    if (parts.length <= known) continue
    const typed = words.slice(0, parts.length).join(':')
    const distance = editDistance(typed, candidate)
    // Closer wins; on a tie a command (more words) beats the topic it belongs to.
    if (!best || distance < best.distance || (distance === best.distance && parts.length > best.parts.length)) best = {parts, distance}
  }
  if (!best) return {known: words.slice(0, known), unknown}
  // Close enough for the words that were wrong (the known topic words add nothing to the distance).
  const wrong = words.slice(known, best.parts.length).join(':')
  const close = best.distance <= Math.max(2, Math.ceil(wrong.length * 0.4))
  if (!close) return {known: words.slice(0, known), unknown}
  return {known: words.slice(0, known), unknown: words.slice(0, Math.max(best.parts.length, unknown.length)), suggestion: best.parts}
}

/** The output format the command line asks for, as the commands choose it (explicit, else by TTY). */
function formatFromArgv(argv: string[]): Format {
  let format: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--') break
    if (a === '--json') return 'json'
    if (a === '-o' || a === '--output') format = argv[i + 1]
    else if (a.startsWith('--output=')) format = a.slice('--output='.length)
    else if (a.startsWith('-o') && !a.startsWith('--') && a.length > 2) format = a.slice(a[2] === '=' ? 3 : 2)
  }
  return format && (FORMATS as readonly string[]).includes(format) ? (format as Format) : defaultFormat(host().io.stdoutIsTTY)
}

/**
 * Prints a usage error the way commands do (one line on stderr; with a machine format also
 * `{"error": {...}}`) and sets exit code 2. For errors found before any command runs.
 */
export function reportUsageError(message: string, argv: string[] = host().argv): void {
  const {code, line, json} = classify(new UsageError(message))
  const {io} = host()
  const output = new Output({
    format: formatFromArgv(argv),
    color: colorEnabled(argv.includes('--no-color'), io.env, io.stdoutIsTTY),
    stdout: io.stdout,
    stderr: io.stderr,
  })
  output.error(line, json)
  host().exitCode = code
}

const hook: Hook<'command_not_found'> = async function (opts) {
  const words = opts.id.split(':').filter(Boolean)
  const {known, unknown, suggestion} = suggest(words, opts.config)
  const bin = opts.config.bin
  const topic = known.length ? ` ${known.join(' ')}` : ''
  const hint = suggestion ? ` Did you mean "${suggestion.join(' ')}"?` : ''
  reportUsageError(`Unknown command "${unknown.join(' ')}".${hint} See ${bin}${topic} --help.`)
}

export default hook
