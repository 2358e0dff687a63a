/** `payops-emulator`, the package's own command, as a real process (bin/payops-emulator.js runs dist/cli.js, made by the build). */
import {spawn} from 'node:child_process'
import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {tempDir} from './support.js'

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(PACKAGE, 'bin', 'payops-emulator.js')

interface Run {
  code: Promise<number | null>
  stdout: () => string
  stderr: () => string
  signal: (s: NodeJS.Signals) => void
}

function run(args: string[]): Run {
  if (!existsSync(join(PACKAGE, 'dist', 'cli.js'))) throw new Error('packages/emulator/dist/cli.js is missing: run `npm run build` first')
  const child = spawn(process.execPath, [BIN, ...args], {stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  return {code: new Promise((resolve) => child.once('exit', (c) => resolve(c))), stdout: () => out, stderr: () => err, signal: (s) => child.kill(s)}
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 20))
}

describe('payops-emulator', () => {
  it('serves on its own: one JSON line with the base URL and keys, the API answers, SIGINT stops it (exit 0)', async () => {
    const p = run(['--port', '0', '--json'])
    await until(() => p.stdout().includes('\n'))
    const info = JSON.parse(p.stdout().trim()) as {base_url: string; keys: {test: string; test_other: string; live: string}}
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const res = await fetch(`${info.base_url}/api/treasury/accounts`, {headers: {'x-api-key': info.keys.test}})
    expect(res.status).toBe(200)
    expect((await fetch(`${info.base_url}/api/treasury/accounts`)).status).toBe(401)
    p.signal('SIGINT')
    expect(await p.code).toBe(0)
    expect(p.stderr()).toBe('')
  })

  it('refuses before listening with one line and exit 2: a non-loopback host, a bad fault rate, an unknown flag, a state file it cannot write', async () => {
    const dir = tempDir('payops-test-emulator-cli-')
    const cases: Array<[string[], RegExp]> = [
      [['--host', '0.0.0.0'], /^--host 0\.0\.0\.0 is not a loopback address/],
      [['--fault-rate', '2'], /^--fault-rate "2" must be a number from 0 to 1/],
      [['--bogus'], /bogus/],
      [['--port', '0', '--state', join(dir.path, 'missing', 'state.sqlite')], /^Cannot write the emulator state file .*: its directory does not exist\./],
    ]
    for (const [args, message] of cases) {
      const p = run(args)
      expect(await p.code, args.join(' ')).toBe(2)
      expect(p.stderr().trim().split('\n')).toHaveLength(1)
      expect(p.stderr()).toMatch(message)
      expect(p.stdout()).toBe('')
    }
    dir.cleanup()
  })

  it('--stop-on-stdin-end: a starter that ends its stdin (or is gone) stops it cleanly, exit 0; its clock is in the JSON line', async () => {
    const child = spawn(process.execPath, [BIN, '--port', '0', '--json', '--stop-on-stdin-end'], {stdio: ['pipe', 'pipe', 'pipe']})
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const code = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
    await until(() => out.includes('\n'))
    const info = JSON.parse(out.trim()) as {base_url: string; clock: string}
    expect(Date.parse(info.clock)).toBeGreaterThan(0)
    expect((await fetch(`${info.base_url}/_emulator/clock`)).status).toBe(200)
    child.stdin.end()
    expect(await code).toBe(0)
    expect(err).toBe('')
    await expect(fetch(`${info.base_url}/_emulator/clock`)).rejects.toThrow()
  })

  it('refuses a port in use with one line and exit 2', async () => {
    const first = run(['--port', '0', '--json'])
    await until(() => first.stdout().includes('\n'))
    const port = new URL((JSON.parse(first.stdout().trim()) as {base_url: string}).base_url).port
    const second = run(['--port', port, '--json'])
    expect(await second.code).toBe(2)
    expect(second.stderr()).toBe(`Port ${port} is in use; pick another with --port (0 for any free port).\n`)
    first.signal('SIGTERM')
    expect(await first.code).toBe(0)
  })

  it('--help prints the options (exit 0)', async () => {
    const p = run(['--help'])
    expect(await p.code).toBe(0)
    expect(p.stdout()).toMatch(/^Usage: payops-emulator \[options\]/)
    expect(p.stdout()).toContain('--scenario FILE')
  })
})
