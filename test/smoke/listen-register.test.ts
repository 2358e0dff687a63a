/**
 * `webhooks listen --register` as a real process, for what only a process shows: a real SIGINT
 * deletes the endpoint it registered, and a kill -9 leaves it behind, named (with the command that
 * deletes it) by the next listener that registers against the same emulator.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cleanEnv, knownSecrets, run, startEmulator, tempDir, type Emulator} from './process.js'

let emu: Emulator
const configDir = tempDir().path
const procs: ChildProcess[] = []

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL')
  await emu?.stop()
})

async function until(check: () => boolean, what: () => string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const env = () => cleanEnv({PAYOPS_CONFIG_DIR: configDir, PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test})

async function register() {
  const proc = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--port', '0', '-o', 'ndjson', '--register'], {env: env(), stdio: ['ignore', 'pipe', 'pipe']})
  procs.push(proc)
  let stdout = ''
  let stderr = ''
  proc.stdout!.on('data', (d) => (stdout += d))
  proc.stderr!.on('data', (d) => (stderr += d))
  await until(() => /Listening on \S+/.test(stderr) || proc.exitCode !== null, () => `listener start: ${stderr}`)
  if (proc.exitCode !== null) throw new Error(`listener exited ${proc.exitCode}: ${stderr}`)
  const id = /Registered webhook endpoint (\S+)/.exec(stderr)![1]
  const exited = new Promise<{code: number | null; signal: NodeJS.Signals | null}>((resolve) => proc.once('exit', (code, signal) => resolve({code, signal})))
  return {proc, id, stdout: () => stdout, stderr: () => stderr, exited}
}

async function endpointIds(): Promise<string[]> {
  const r = await run(['webhooks', 'list', '--all', '-o', 'json'], {configDir, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}})
  expect(r.code, r.stderr).toBe(0)
  return (r.json() as Array<{id: string}>).map((h) => h.id)
}

describe('listen --register, as a process', () => {
  it('a real SIGINT deletes the endpoint; a kill -9 leaves it, and the next --register names it with the delete command', async () => {
    const first = await register()
    expect(await endpointIds()).toContain(first.id)
    first.proc.kill('SIGINT')
    expect((await first.exited).code).toBe(0)
    expect(first.stderr()).toMatch(new RegExp(`Deleted webhook endpoint ${first.id}`))
    expect(await endpointIds()).not.toContain(first.id)

    const killed = await register()
    killed.proc.kill('SIGKILL')
    expect((await killed.exited).signal).toBe('SIGKILL')
    expect(killed.stderr()).toMatch(new RegExp(`If this listener is killed, delete it: payops webhooks delete ${killed.id} --yes`))
    expect(await endpointIds()).toContain(killed.id)

    const next = await register()
    expect(next.stderr()).toMatch(new RegExp(`Endpoint ${killed.id} .* was not deleted\\. If that listener is no longer running, delete it: payops webhooks delete ${killed.id} --yes`))
    next.proc.kill('SIGTERM')
    expect((await next.exited).code).toBe(0)
    for (const s of knownSecrets) expect(next.stdout().includes(s) || next.stderr().includes(s)).toBe(false)
    const deleted = await run(['webhooks', 'delete', killed.id, '--yes'], {configDir, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}})
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(await endpointIds()).not.toContain(killed.id)
    // Deleted by hand: the next listener forgets it quietly.
    const last = await register()
    expect(last.stderr()).not.toContain(killed.id)
    last.proc.kill('SIGINT')
    expect((await last.exited).code).toBe(0)
  })
})
