/**
 * The team store's daily cap across real processes: ten `moves create` processes at once, five on
 * each of two config dirs (two machines) logged in as two members, move at most the team's cap.
 * A PostgreSQL server of its own (the same embedded server the in-process tests use), a database
 * and two login roles; the processes are real `bin/run.js` runs against the in-process emulator.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {randomBytes} from 'node:crypto'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {smokePostgres, until} from '../support/postgres-smoke.js'
import {activityAmounts, run, startEmulator, tempDir, type Emulator} from '../support/index.js'
import {BIN, cleanEnv} from './process.js'

let emu: Emulator
const pgs = smokePostgres()
const one = tempDir('payops-team-cap-')
const two = tempDir('payops-team-cap-')

beforeAll(async () => {
  emu = await startEmulator()
}, 120_000)
afterAll(async () => {
  await emu?.stop()
  one.cleanup()
  two.cleanup()
})

function spawnPayops(dir: string, team: string, args: string[], started?: (p: ChildProcess) => void): Promise<{code: number | null; signal: NodeJS.Signals | null; stderr: string}> {
  const proc = spawn(process.execPath, [BIN, ...args], {env: cleanEnv({PAYOPS_CONFIG_DIR: dir, PAYOPS_TEAM_DATABASE_URL: team}), stdio: ['ignore', 'ignore', 'pipe']})
  let stderr = ''
  proc.stderr!.on('data', (d) => (stderr += d))
  started?.(proc)
  return new Promise((resolve) => proc.once('close', (code, signal) => resolve({code, signal, stderr})))
}

/** A loopback proxy to the emulator that never answers a POST (the request is held until the proxy closes). */
async function holdingProxy(): Promise<{url: string; held(): number; close(): Promise<void>}> {
  let held = 0
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v
    const answer = await fetch(emu.baseUrl + req.url, {method: req.method, headers})
    const body = Buffer.from(await answer.arrayBuffer())
    res.writeHead(answer.status, {'content-type': answer.headers.get('content-type') ?? 'application/json', 'content-length': String(body.length)})
    res.end(body)
  }
  const server = createServer((req, res) => {
    if (req.method === 'POST') {
      held++
      req.resume()
      return
    }
    void forward(req, res).catch(() => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

describe('the team cap between processes', () => {
  it('ten `moves create` processes on two machines at once under a 100.00 team cap move at most 100.00', async () => {
    const db = `payops_smoke_${randomBytes(4).toString('hex')}`
    await pgs.sql('postgres', `CREATE DATABASE ${db}`)
    for (const dir of [one.path, two.path]) expect((await run(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: dir, input: emu.keys.test})).code).toBe(0)
    const init = await run(['team', 'init', '--database-url', pgs.adminUrl(db)], {configDir: one.path})
    expect(init.code, init.stderr).toBe(0)
    const admin = await pgs.login(`admin_${db}`, db, 'payops_admin')
    const ana = await pgs.login(`ana_${db}`, db, 'payops_member')
    const bob = await pgs.login(`bob_${db}`, db, 'payops_member')
    expect((await run(['team', 'policy', 'set', 'daily-max', '100.00', 'USD'], {configDir: one.path, env: {PAYOPS_TEAM_DATABASE_URL: admin}})).code).toBe(0)
    const a = (await run(['subaccounts', 'create', '--name', 'Cap A'], {configDir: one.path})).json().id as string
    const b = (await run(['subaccounts', 'create', '--name', 'Cap B'], {configDir: one.path})).json().id as string
    const runs = await Promise.all(Array.from({length: 10}, (_, i) => spawnPayops(i % 2 ? two.path : one.path, i % 2 ? bob : ana, ['moves', 'create', '--from', a, '--to', b, '--amount', '30.00'])))
    const codes = runs.map((r) => r.code).sort()
    expect(codes, runs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 0, 3, 3, 3, 3, 3, 3, 3])
    for (const r of runs.filter((x) => x.code === 3)) expect(r.stderr).toMatch(/Refused by the team's policies: daily-max 100\.00 USD/)
    expect(await activityAmounts(emu, b, 'credit', {configDir: one.path})).toEqual([3000, 3000, 3000])
    const [{total}] = await pgs.sql(db, 'SELECT total FROM payops.daily_totals')
    expect(Number(total)).toBe(9000)
  })

  it('kill -9 while the request is in flight: its intent stays on record without an outcome and counts towards the cap', async () => {
    const db = `payops_smoke_${randomBytes(4).toString('hex')}`
    await pgs.sql('postgres', `CREATE DATABASE ${db}`)
    const three = tempDir('payops-team-cap-')
    const proxy = await holdingProxy()
    try {
      expect((await run(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: three.path, input: emu.keys.test})).code).toBe(0)
      expect((await run(['team', 'init', '--database-url', pgs.adminUrl(db)], {configDir: three.path})).code).toBe(0)
      const admin = await pgs.login(`admin_${db}`, db, 'payops_admin')
      const ana = await pgs.login(`ana_${db}`, db, 'payops_member')
      expect((await run(['team', 'policy', 'set', 'daily-max', '100.00', 'USD'], {configDir: three.path, env: {PAYOPS_TEAM_DATABASE_URL: admin}})).code).toBe(0)
      const a = (await run(['subaccounts', 'create', '--name', 'Kill A'], {configDir: three.path})).json().id as string
      const b = (await run(['subaccounts', 'create', '--name', 'Kill B'], {configDir: three.path})).json().id as string
      expect((await run(['profiles', 'set', 'ops', 'base-url', proxy.url], {configDir: three.path})).code).toBe(0)
      let proc: ChildProcess | undefined
      const done = spawnPayops(three.path, ana, ['moves', 'create', '--from', a, '--to', b, '--amount', '60.00', '--max-retries', '0'], (p) => (proc = p))
      await until('the move to be in flight', () => proxy.held() === 1)
      proc!.kill('SIGKILL')
      expect((await done).signal).toBe('SIGKILL')
      // The decision and its intent committed together before the request went out; no outcome after it.
      expect(await pgs.sql(db, 'SELECT kind, amount::int AS amount, status FROM payops.intents')).toEqual([{kind: 'move.create', amount: 6000, status: 'allowed'}])
      expect(await pgs.sql(db, 'SELECT count(*)::int AS n FROM payops.outcomes')).toEqual([{n: 0}])
      expect(await activityAmounts(emu, b, 'credit', {configDir: one.path})).toEqual([])
      // Read as possibly sent: the cap counts it.
      expect((await run(['profiles', 'set', 'ops', 'base-url', emu.baseUrl], {configDir: three.path})).code).toBe(0)
      const next = await spawnPayops(three.path, ana, ['moves', 'create', '--from', a, '--to', b, '--amount', '50.00'])
      expect(next.code, next.stderr).toBe(3)
      expect(next.stderr).toMatch(/60\.00 USD allowed today .* \+ 50\.00 USD asked = 110\.00 USD/)
    } finally {
      await proxy.close()
      three.cleanup()
    }
  })
})
