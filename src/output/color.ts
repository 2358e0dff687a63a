/** Colour, off when stdout is not a TTY, with --no-color or NO_COLOR. */
import {Chalk} from 'chalk'

export interface Paint {
  bold(s: string): string
  dim(s: string): string
  red(s: string): string
  green(s: string): string
  yellow(s: string): string
  cyan(s: string): string
  live(s: string): string
  status(s: string): string
}

const STATUS_COLOURS: Record<string, 'green' | 'yellow' | 'red' | 'cyan' | 'gray'> = {
  settled: 'green',
  ok: 'green',
  active: 'green',
  created: 'yellow',
  approved: 'cyan',
  initiated: 'cyan',
  debited: 'cyan',
  pending: 'yellow',
  canceled: 'gray',
  failed: 'red',
  error: 'red',
  inactive: 'gray',
}

export function colorize(enabled: boolean): Paint {
  const c = new Chalk({level: enabled ? 1 : 0})
  return {
    bold: (s) => c.bold(s),
    dim: (s) => c.dim(s),
    red: (s) => c.red(s),
    green: (s) => c.green(s),
    yellow: (s) => c.yellow(s),
    cyan: (s) => c.cyan(s),
    live: (s) => c.bgRed.white.bold(s),
    status: (s) => {
      const colour = STATUS_COLOURS[s.toLowerCase()]
      return colour ? c[colour](s) : s
    },
  }
}

export function colorEnabled(flagNoColor: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean | undefined): boolean {
  if (flagNoColor) return false
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true
  return Boolean(isTTY)
}
