#!/usr/bin/env node
// Measures how much memory the emulator holds per settled move: starts the real emulator
// (`payops emulator start --port 0 --json`, under `node --expose-gc`), creates two subaccounts,
// reads the emulator's RSS (VmRSS from /proc/PID/status, after a full GC through
// POST /_emulator/gc), creates N settled moves between the two subaccounts, and reads it again.
// One fresh emulator per size. Prints one JSON line per size:
//   {"moves":N,"rss_before_mb":…,"rss_after_mb":…,"bytes_per_move":…,"projected_1m_mb":…,…}
// Public tools only (child_process, /proc, fetch). Usage:
//   node scripts/emulator-memory.mjs [--moves 100000,1000000] [--via http|bulk] [--concurrency 32]
// --via http (default): concurrent POST /api/subaccounts/move, each with its own Idempotency-Key
//   (`payops-import-<8 hex>-<32 hex>`, the shape `moves import` sends) and auto-approve.
// --via bulk: POST /_emulator/bulk/moves, the control API that runs the same store operations
//   (create with the same key shape, approve, settle) in batches of 50,000; for 1M in seconds.
// Needs a build (`npm run build`): it runs bin/run.js.
import {randomBytes} from 'node:crypto'
import {rmSync} from 'node:fs'
import {cleanEnv, option as opt, procKb, startEmulator as start} from './measure.mjs'

const SIZES = opt('moves', '100000').split(',').map(Number)
const VIA = opt('via', 'http')
const CONCURRENCY = Number(opt('concurrency', '32'))
if (SIZES.some((n) => !Number.isInteger(n) || n < 1) || !['http', 'bulk'].includes(VIA) || !(CONCURRENCY >= 1)) {
  process.stderr.write('usage: node scripts/emulator-memory.mjs [--moves 100000,1000000] [--via http|bulk] [--concurrency 32]\n')
  process.exit(2)
}
const BULK_BATCH = 50_000
const {work, env} = cleanEnv('payops-emu-mem-')

function rssKb(pid) {
  const kb = procKb(pid, 'VmRSS')
  if (!kb) throw new Error(`no VmRSS for process ${pid}`)
  return kb
}

const startEmulator = () => start(env, ['--expose-gc'])

async function call(emu, method, path, body, headers = {}) {
  const res = await fetch(emu.baseUrl + path, {
    method,
    headers: {'content-type': 'application/json', 'x-api-key': emu.key, ...headers},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

/** RSS in kB after a full GC (two, so that finalised objects go as well), settled for a moment. */
async function settledRss(emu) {
  for (let i = 0; i < 2; i++) {
    const r = await call(emu, 'POST', '/_emulator/gc')
    if (!r.gc) throw new Error('the emulator was not started with --expose-gc')
  }
  await new Promise((r) => setTimeout(r, 300))
  return rssKb(emu.proc.pid)
}

async function viaHttp(emu, from, to, n, batch) {
  let next = 0
  const worker = async () => {
    for (;;) {
      const i = next++
      if (i >= n) return
      const key = `payops-import-${batch}-${i.toString(16).padStart(32, '0')}`
      const r = await call(emu, 'POST', '/api/subaccounts/move', {from_subaccount_id: from, to_subaccount_id: to, amount_in_minor_units: 1 + (i % 997), auto_approve: true}, {'idempotency-key': key})
      if (r.data.status !== 'settled') throw new Error(`move ${r.data.id} is ${r.data.status}`)
    }
  }
  await Promise.all(Array.from({length: Math.min(CONCURRENCY, n)}, worker))
}

async function viaBulk(emu, from, to, n, batch) {
  for (let done = 0; done < n; done += BULK_BATCH) {
    const count = Math.min(BULK_BATCH, n - done)
    // Each batch its own prefix (8 hex + batch number), so that keys stay the import's shape and length.
    const prefix = `payops-import-${batch}-`
    const body = {from_subaccount_id: from, to_subaccount_id: to, count, amount_in_minor_units: 1 + (done % 997), idempotency_key_prefix: `${prefix}${String(done / BULK_BATCH).padStart(3, '0')}`}
    await call(emu, 'POST', '/_emulator/bulk/moves', body)
  }
}

async function measure(n) {
  const emu = await startEmulator()
  try {
    const a = (await call(emu, 'POST', '/api/subaccounts', {name: 'Memory source'})).data.id
    const b = (await call(emu, 'POST', '/api/subaccounts', {name: 'Memory destination'})).data.id
    // Balances may go negative in the emulator: no funding is needed before moving money.
    const before = await settledRss(emu)
    const started = process.hrtime.bigint()
    const batch = randomBytes(4).toString('hex')
    await (VIA === 'http' ? viaHttp : viaBulk)(emu, a, b, n, batch)
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    const sub = (await call(emu, 'GET', `/api/subaccounts/${b}/activity?limit=1`))
    if (sub.total_count !== n) throw new Error(`destination has ${sub.total_count} activity lines, expected ${n}`)
    const after = await settledRss(emu)
    const {memory} = await call(emu, 'POST', '/_emulator/gc')
    const bytesPerMove = Math.round(((after - before) * 1024) / n)
    return {
      moves: n,
      rss_before_mb: Math.round(before / 102.4) / 10,
      rss_after_mb: Math.round(after / 102.4) / 10,
      bytes_per_move: bytesPerMove,
      projected_1m_mb: Math.round((before * 1024 + bytesPerMove * 1_000_000) / 1048576),
      heap_used_after_mb: Math.round(memory.heapUsed / 104857.6) / 10,
      via: VIA,
      seconds: Math.round(seconds * 10) / 10,
      moves_per_second: Math.round(n / seconds),
    }
  } finally {
    emu.proc.kill('SIGTERM')
    await new Promise((r) => (emu.proc.exitCode === null ? emu.proc.once('exit', r) : r()))
  }
}

try {
  for (const n of SIZES) process.stdout.write(`${JSON.stringify(await measure(n))}\n`)
} finally {
  rmSync(work, {recursive: true, force: true})
}
