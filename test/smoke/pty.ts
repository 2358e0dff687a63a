/**
 * Runs payops in a real pseudo-terminal (util-linux `script`), typing answers when prompts appear.
 */
import {spawn} from 'node:child_process'
import {BIN, cleanEnv, knownSecrets} from './process.js'

export interface PtyResult {
  code: number
  output: string
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')

/** Runs `payops args` in a pty; each time `when` appears in the output, types `answer` + Enter. */
export function runInPty(args: string[], answers: Array<{when: RegExp; answer: string}>, env: Record<string, string>): Promise<PtyResult> {
  const cmd = [process.execPath, BIN, ...args].map(shellQuote).join(' ')
  return new Promise((resolve, reject) => {
    const proc = spawn('script', ['-qec', cmd, '/dev/null'], {env: cleanEnv({TERM: 'xterm', ...env}), stdio: ['pipe', 'pipe', 'pipe']})
    let output = ''
    const pending = [...answers]
    const onData = (d: string) => {
      output += d
      const plain = stripAnsi(output)
      if (pending.length && pending[0].when.test(plain)) {
        const {answer} = pending.shift()!
        setTimeout(() => proc.stdin.write(`${answer}\r`), 50)
      }
    }
    // Decoded as a stream: a character split between two chunks (→, a spinner's braille) stays whole.
    proc.stdout.setEncoding('utf8').on('data', onData)
    proc.stderr.setEncoding('utf8').on('data', onData)
    const timer = setTimeout(() => {
      proc.kill('SIGKILL')
      reject(new Error(`pty run timed out: ${stripAnsi(output)}`))
    }, 30_000)
    proc.on('close', (code) => {
      clearTimeout(timer)
      const plain = stripAnsi(output)
      for (const s of knownSecrets) if (plain.includes(s)) return reject(new Error('A secret appeared in the terminal output'))
      resolve({code: code ?? -1, output: plain})
    })
  })
}
