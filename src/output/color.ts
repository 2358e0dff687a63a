/** Colour, off when stdout is not a TTY, with --no-color or NO_COLOR. */
import {Chalk} from 'chalk'
import {trustedSgr} from './safe.js'

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

/**
 * The paint commands compose messages with: the same colours, their codes marked as our own, so
 * that the human writers (`Output.note`, `warn`, `error`, `writeLine`, the prompter) let them pass
 * while escaping any code that came with a value. Nesting works as chalk's does.
 */
export function trustedPaint(enabled: boolean): Paint {
  const raw = colorize(enabled)
  if (!enabled) return raw
  const style = (paint: (s: string) => string) => {
    const [open, close] = paint('\u0000').split('\u0000').map(trustedSgr)
    // As chalk: an empty string stays empty; a nested close re-opens the outer style.
    return (s: string) => (s ? open + (close ? s.replaceAll(close, close + open) : s) + close : '')
  }
  const bold = style(raw.bold)
  const styles = {bold, dim: style(raw.dim), red: style(raw.red), green: style(raw.green), yellow: style(raw.yellow), cyan: style(raw.cyan), live: style(raw.live)}
  const colours = {green: styles.green, yellow: styles.yellow, red: styles.red, cyan: styles.cyan, gray: style(new Chalk({level: 1}).gray)}
  return {
    ...styles,
    status: (s) => {
      const colour = STATUS_COLOURS[s.toLowerCase()]
      return colour ? colours[colour](s) : s
    },
  }
}

export function colorEnabled(flagNoColor: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean | undefined): boolean {
  if (flagNoColor) return false
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true
  return Boolean(isTTY)
}
