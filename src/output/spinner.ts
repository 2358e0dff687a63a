/**
 * A one-line spinner on a terminal's stderr (`transfers create --wait`): the text, a turning
 * frame and the latest status, redrawn in place; on stop, one line with the final status.
 * It writes only to the stream it is given (the command context's stderr). The text and the
 * statuses (a server's words) are escaped: they never move the cursor the spinner relies on.
 */
import type {Writable} from 'node:stream'
import {terminalLine} from './safe.js'

export interface Spinner {
  start(text: string, status: string): void
  status(status: string): void
  stop(status: string): void
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const CLEAR_LINE = '\r\u001b[2K'

export function terminalSpinner(stream: Writable, intervalMs = 100): Spinner {
  let timer: NodeJS.Timeout | undefined
  let text = ''
  let current = ''
  let frame = 0
  const draw = () => stream.write(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${text}... ${current}`)
  return {
    start(t, s) {
      text = terminalLine(t)
      current = terminalLine(s)
      draw()
      timer = setInterval(draw, intervalMs)
      timer.unref()
    },
    status(s) {
      current = terminalLine(s)
    },
    stop(s) {
      if (timer) clearInterval(timer)
      timer = undefined
      stream.write(`${CLEAR_LINE}${text}... ${terminalLine(s)}\n`)
    },
  }
}
