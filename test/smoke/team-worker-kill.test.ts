/**
 * The team worker killed between send and record: a real `bin/run.js team worker --once` process
 * sends an approved request (the move is made: the emulator has it) and is killed with SIGKILL
 * before its answer arrives, so the store holds the claim without an outcome. The next pass
 * finishes the request with its key, and the emulator's ledger shows the money moved once.
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
const cron = tempDir('payops-worker-kill-')
const member = tempDir('payops-worker-kill-')
const checker = tempDir('payops-worker-kill-')

beforeAll(async () => {
  emu = await startEmulator()
}, 120_000)
afterAll(async () => {
  await emu?.stop()
  for (const d of [cron, member, checker]) d.cleanup()
})

/** A loopback proxy to the emulator that forwards a POST and never gives its answer back (the emulator carried it out). */
async function swallowingProxy(): Promise<{url: string; answered(): number; close(): Promise<void>}> {
  let answered = 0
  const forward = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v
    const answer = await fetch(emu.baseUrl + req.url, {method: req.method, headers, ...(body.length ? {body: new Uint8Array(body)} : {})})
    const data = Buffer.from(await answer.arrayBuffer())
    if (req.method === 'POST') {
      answered++
      return
    }
    res.writeHead(answer.status, {'content-type': answer.headers.get('content-type') ?? 'application/json', 'content-length': String(data.length)})
    res.end(data)
  }
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => void forward(req, res, Buffer.concat(chunks)).catch(() => res.destroy()))
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    answered: () => answered,
    close: () => new Promise((resolve) => {
      proxy.closeAllConnections()
      proxy.close(() => resolve())
    }),
  }
}

describe('the team worker killed between send and record', () => {
  it('the next pass finishes the request with its key: the money moved once, and the store says so', async () => {
    const db = `payops_smoke_${randomBytes(4).toString('hex')}`
    await pgs.sql('postgres', `CREATE DATABASE ${db}`)
    const proxy = await swallowingProxy()
    try {
      expect((await run(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: cron.path, input: emu.keys.test})).code).toBe(0)
      expect((await run(['team', 'init', '--database-url', pgs.adminUrl(db)], {configDir: cron.path})).code).toBe(0)
      const ana = await pgs.login(`ana_${db}`, db, 'payops_member')
      const bob = await pgs.login(`bob_${db}`, db, 'payops_member')
      const worker = await pgs.login(`cron_${db}`, db, 'payops_worker')
      const a = (await run(['subaccounts', 'create', '--name', 'Kill A'], {configDir: cron.path})).json().id as string
      const b = (await run(['subaccounts', 'create', '--name', 'Kill B'], {configDir: cron.path})).json().id as string
      expect((await run(['profiles', 'add', 'ana', '--team', ana, '--use'], {configDir: member.path})).code).toBe(0)
      expect((await run(['profiles', 'add', 'bob', '--team', bob, '--use'], {configDir: checker.path})).code).toBe(0)
      const asked = await run(['moves', 'create', '--from', a, '--to', b, '--amount', '75.00', '--currency', 'USD', '-o', 'json'], {configDir: member.path})
      expect(asked.code, asked.stderr).toBe(0)
      const ref = asked.json().id as string
      expect((await run(['approvals', 'review', ref, '--yes'], {configDir: checker.path})).code).toBe(0)

      // The worker sends through the proxy: the emulator makes the move, the answer never comes back; SIGKILL.
      expect((await run(['profiles', 'set', 'ops', 'base-url', proxy.url], {configDir: cron.path})).code).toBe(0)
      const env = cleanEnv({PAYOPS_CONFIG_DIR: cron.path, PAYOPS_TEAM_DATABASE_URL: worker})
      let proc: ChildProcess | undefined
      const done = new Promise<{signal: NodeJS.Signals | null}>((resolve) => {
        proc = spawn(process.execPath, [BIN, 'team', 'worker', '--once', '--max-retries', '0'], {env, stdio: ['ignore', 'ignore', 'ignore']})
        proc.once('close', (_code, signal) => resolve({signal}))
      })
      await until('the move to be made and its answer held', () => proxy.answered() === 1)
      proc!.kill('SIGKILL')
      expect((await done).signal).toBe('SIGKILL')
      expect(await activityAmounts(emu, b, 'credit', {configDir: cron.path})).toEqual([7500])
      // Claimed, sent, no outcome recorded.
      expect(await pgs.sql(db, 'SELECT count(*)::int AS n FROM payops.executions')).toEqual([{n: 1}])
      expect(await pgs.sql(db, 'SELECT count(*)::int AS n FROM payops.execution_outcomes')).toEqual([{n: 0}])
      const shown = await run(['approvals', 'show', ref, '-o', 'json'], {configDir: member.path})
      expect(shown.json()).toMatchObject({state: 'being carried out'})

      // The next pass (a real process too), straight to the API: the move is replayed by its key, not made again.
      expect((await run(['profiles', 'set', 'ops', 'base-url', emu.baseUrl], {configDir: cron.path})).code).toBe(0)
      const next = spawn(process.execPath, [BIN, 'team', 'worker', '--once', '-o', 'json'], {env, stdio: ['ignore', 'pipe', 'pipe']})
      let out = ''
      let err = ''
      next.stdout!.on('data', (d) => (out += d))
      next.stderr!.on('data', (d) => (err += d))
      const code = await new Promise<number | null>((resolve) => next.once('close', (c) => resolve(c)))
      expect(code, err).toBe(0)
      const [row] = JSON.parse(out) as Array<{request: string; result: string; id: string}>
      expect(row).toMatchObject({request: ref, result: 'carried_out'})
      expect(err).toMatch(/carried out: req-\d+ .*replayed|carried out: req-\d+ .*already/i)
      expect(await activityAmounts(emu, b, 'credit', {configDir: cron.path})).toEqual([7500])
      expect(await pgs.sql(db, 'SELECT status, resource_id FROM payops.execution_outcomes')).toEqual([{status: 'carried_out', resource_id: row.id}])
      const again = await run(['team', 'worker', '--once', '-o', 'json'], {configDir: cron.path, env: {PAYOPS_TEAM_DATABASE_URL: worker}})
      expect(again.code).toBe(0)
      expect(again.json()).toEqual([])
      expect((await run(['approvals', 'show', ref, '-o', 'json'], {configDir: member.path})).json()).toMatchObject({state: 'carried out', carried_out_as: row.id})
    } finally {
      await proxy.close()
    }
  })
})
