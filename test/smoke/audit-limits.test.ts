/**
 * The audit trail's controls across real processes: five `moves create` processes at once under a
 * daily cap (the cap decided in the trail's write transaction, whose lock holds between
 * processes), imports and moves at once writing the one control store (the trail and the import
 * journals share its write lock), and a write that fails part way (the file-size limit of `ulimit -f` stands in for a
 * full disk: the write stops with EFBIG after the bytes that fit). The processes are real `bin/run.js` runs against the
 * in-process emulator; setting up and checking run in-process.
 */
import {spawn} from 'node:child_process'
import {statSync, writeFileSync} from 'node:fs'
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {AuditLog, readAudit} from '../../src/audit/index.js'
import {TRAIL_SCHEMA} from '../../src/audit/schema.js'
import {openDatabase} from '../../src/db/index.js'
import {trailFile} from '../support/trail.js'
import {activityAmounts, run, startEmulator, tempDir, type Emulator} from '../support/index.js'
import {BIN, cleanEnv} from './process.js'

let emu: Emulator
/** The size of a frame of SQLite's write-ahead log: a 4 KiB page and its 24-byte header. */
const FRAME = 4096 + 24

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
})

/** A config dir with a profile for the test key and two subaccounts; removed after `fn`. */
async function withTrail(fn: (dir: string, a: string, b: string) => Promise<void>): Promise<void> {
  const d = tempDir('payops-audit-limits-')
  try {
    const cli = (args: string[], input?: string) => run(args, {configDir: d.path, input})
    await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], emu.keys.test)
    const a = (await cli(['subaccounts', 'create', '--name', 'Limits A'])).json().id as string
    const b = (await cli(['subaccounts', 'create', '--name', 'Limits B'])).json().id as string
    await fn(d.path, a, b)
  } finally {
    d.cleanup()
  }
}

/**
 * `payops ARGS` in a real process on the config dir (its profile names the emulator and key); with
 * `blocks`, no file may grow past that many KiB (`ulimit -f`): a write past it fails with EFBIG (payops
 * listens for SIGXFSZ), as one on a full disk fails with ENOSPC.
 */
function spawnPayops(dir: string, args: string[], blocks?: number): Promise<{code: number | null; signal: NodeJS.Signals | null; stderr: string}> {
  const quoted = [process.execPath, BIN, ...args].map((s) => `'${s.replace(/'/g, `'\\''`)}'`).join(' ')
  const proc = spawn('bash', ['-c', `${blocks === undefined ? '' : `ulimit -f ${blocks}; `}exec ${quoted}`], {env: cleanEnv({PAYOPS_CONFIG_DIR: dir}), stdio: ['ignore', 'ignore', 'pipe']})
  let stderr = ''
  proc.stderr!.on('data', (d) => (stderr += d))
  return new Promise((resolve) => proc.once('close', (code, signal) => resolve({code, signal, stderr})))
}

/**
 * A loopback proxy to the emulator that holds every subaccount lookup (what a move's planning
 * reads, before its guard) until `n` have arrived, then lets them all through at once: the runs
 * reach their guards together, whenever each process started.
 */
async function barrierProxy(n: number): Promise<{url: string; close(): Promise<void>}> {
  const held: Array<() => void> = []
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection' && k !== 'content-length') headers[k] = v
    const answer = await fetch(emu.baseUrl + req.url, {method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined})
    const body = Buffer.from(await answer.arrayBuffer())
    res.writeHead(answer.status, {'content-type': answer.headers.get('content-type') ?? 'application/json', 'content-length': String(body.length)})
    res.end(body)
  }
  const server = createServer((req, res) => {
    const go = () => void forward(req, res).catch(() => res.destroy())
    if (req.method !== 'GET' || !req.url?.startsWith('/api/subaccounts/') || held.length >= n) return go()
    held.push(go)
    if (held.length === n) for (const release of held) release()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

describe('check and record together, between processes', () => {
  it('five `moves create` processes reaching their guards at once under a 150.00 cap move at most 150.00', async () => {
    await withTrail(async (dir, a, b) => {
      expect((await run(['profiles', 'set', 'sandbox', 'daily-max', '150.00', 'USD'], {configDir: dir})).code).toBe(0)
      const proxy = await barrierProxy(5)
      try {
        expect((await run(['profiles', 'set', 'sandbox', 'base-url', proxy.url], {configDir: dir})).code).toBe(0)
        const runs = await Promise.all(Array.from({length: 5}, () => spawnPayops(dir, ['moves', 'create', '--from', a, '--to', b, '--amount', '50.00'])))
        expect(runs.map((r) => r.code).sort(), runs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 0, 3, 3])
      } finally {
        await proxy.close()
      }
      expect((await activityAmounts(emu, b, 'credit')).reduce((s, v) => s + v, 0)).toBe(15_000)
      expect((await run(['audit', 'verify'], {configDir: dir})).code).toBe(0)
    })
  }, 120_000)

  it('imports and moves in several processes at once share the control store\'s one write lock: every run exits 0, every record is kept, the chain is intact and dated in its order', async () => {
    await withTrail(async (dir, a, b) => {
      const files = Array.from({length: 4}, (_, i) => {
        const file = join(dir, `payroll-${i}.csv`)
        writeFileSync(file, ['from,to,amount', ...Array.from({length: 150}, (_, k) => `${a},${b},${i}.${String((k % 99) + 1).padStart(2, '0')}`)].join('\n') + '\n')
        return file
      })
      const before = readAudit(dir).length
      const runs = await Promise.all([
        ...files.map((f) => spawnPayops(dir, ['moves', 'import', f, '--concurrency', '16', '--yes'])),
        ...Array.from({length: 3}, () => spawnPayops(dir, ['moves', 'create', '--from', a, '--to', b, '--amount', '0.01', '--yes'])),
      ])
      expect(runs.map((r) => r.code), runs.map((r) => r.stderr).join('\n')).toEqual([0, 0, 0, 0, 0, 0, 0])
      // An intent and an outcome for each of the 603 moves.
      expect(readAudit(dir).length - before).toBe(2 * 603)
      const verify = await run(['audit', 'verify', '-o', 'json'], {configDir: dir})
      expect(verify.code, verify.stderr).toBe(0)
      // Each group is dated once it holds the lock: no record is dated before one ahead of it.
      expect(verify.json().backwards).toBeUndefined()
      const db = openDatabase(trailFile(dir), TRAIL_SCHEMA)
      try {
        expect(db.prepare('SELECT count(*) AS n FROM import_finished').get()).toEqual({n: 4})
      } finally {
        db.close()
      }
    })
  }, 120_000)
})

describe('no torn record', () => {
  it('an outcome that cannot be written (the disk full): the transaction is rolled back whole, the trail ends on its last record, exit 1 names what moved and how to record it, and the next command records it', async () => {
    await withTrail(async (dir, a, b) => {
      expect((await run(['moves', 'create', '--from', a, '--to', b, '--amount', '0.01'], {configDir: dir})).code).toBe(0)
      // A connection held open here keeps the store's write-ahead log from being folded back and
      // removed when a command ends: the log grows by whole frames (a page and its header) at each
      // commit, and a record's commit writes at least two (its page and the head's).
      const held = openDatabase(trailFile(dir), TRAIL_SCHEMA)
      try {
        const log = new AuditLog(dir)
        for (let i = 0; i < 6; i++) await log.append({kind: 'outcome', op: `pad-${i}`, profile: null, mode: 'test', method: 'GET', path: '/pad'})
        await log.close()
        const wal = statSync(`${trailFile(dir)}-wal`).size
        expect(wal).toBeGreaterThan(32 << 10)
        // Room for the intent's commit (two or three frames), not for the outcome's after it.
        const blocks = Math.ceil((wal + 3 * FRAME) / 1024)
        const r = await spawnPayops(dir, ['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '--idempotency-key', 'full-disk-1'], blocks)
        expect(r.code, `${r.signal} ${r.stderr}`).toBe(1)
        expect(r.stderr).toMatch(/Created move \S+: 1\.00 USD .*settled\. But its outcome could not be written \(cannot write the audit trail in .*\): the audit trail shows this request as sent with its outcome unknown/)
        expect(r.stderr).toContain(`run \`payops moves create --from ${a} --to ${b} --amount-minor 100 --idempotency-key full-disk-1\` to record it`)
      } finally {
        held.close()
      }
      // The trail ends on its last whole record (the intent), and is intact.
      expect(readAudit(dir).at(-1)).toMatchObject({kind: 'intent', idempotency_key: 'full-disk-1'})
      expect((await run(['audit', 'verify'], {configDir: dir})).code).toBe(0)
      // The next command is not locked out: the command named records it, and nothing moves again.
      const again = await run(['moves', 'create', '--from', a, '--to', b, '--amount-minor', '100', '--idempotency-key', 'full-disk-1'], {configDir: dir})
      expect(again.code, again.stderr).toBe(0)
      expect(readAudit(dir).at(-1)).toMatchObject({kind: 'outcome', idempotency_key: 'full-disk-1', outcome: 'replayed', resource_status: 'settled'})
      expect((await activityAmounts(emu, b, 'credit')).filter((v) => v === 100)).toEqual([100])
    })
  }, 120_000)
})
