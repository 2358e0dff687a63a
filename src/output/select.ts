/** Chooses the output of a command from its flags, its raw argv (when parsing failed) and the terminal. */
import {colorEnabled} from './color.js'
import {FORMATS, Output, defaultFormat, type Format} from './index.js'
import type {Writable} from 'node:stream'

/** The streams and terminal state the output is chosen for. */
export interface OutputStreams {
  stdout: Writable
  stderr: Writable
  stdoutIsTTY: boolean
  /** The terminal's width, when stdout is one. */
  columns?: number
  env: NodeJS.ProcessEnv
}

export interface OutputFlags {
  output?: Format
  json?: boolean
  columns?: string
  query?: string
  'no-color'?: boolean
  wide?: boolean
}

/** The renderer for these flags; `argv` is read too, so that a usage error still renders as asked. */
export function outputFor(flags: OutputFlags | undefined, argv: string[], io: OutputStreams, namer?: (id: string) => string | undefined): Output {
  const f = flags ?? {}
  const format: Format = f.json ? 'json' : (f.output ?? guessFormatFromArgv(argv) ?? defaultFormat(io.stdoutIsTTY))
  return new Output({
    format,
    color: colorEnabled(f['no-color'] || argv.includes('--no-color'), io.env, io.stdoutIsTTY),
    columns: f.columns ? f.columns.split(',').map((c) => c.trim()).filter(Boolean) : undefined,
    query: f.query,
    stdout: io.stdout,
    stderr: io.stderr,
    namer,
    width: f.wide || argv.includes('--wide') || !io.stdoutIsTTY ? undefined : io.columns,
  })
}

export function guessFormatFromArgv(argv: string[]): Format | undefined {
  if (argv.includes('--json')) return 'json'
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const v = a === '-o' || a === '--output' ? argv[i + 1] : a.startsWith('--output=') ? a.slice(9) : a.startsWith('-o') && a.length > 2 ? a.slice(2) : undefined
    if (v && (FORMATS as readonly string[]).includes(v)) return v as Format
  }
  return undefined
}
