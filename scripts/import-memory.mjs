#!/usr/bin/env node
// Measures `payops moves import` on generated N-row CSVs against its own emulator: peak RSS of the
// import process (VmHWM, polled from /proc), wall time, rows/s and bytes per row of its database
// (the plan and the journal, FILE.payops-import.sqlite with its write-ahead log).
// Public tools only (child_process, /proc, the emulator's public API). Usage:
//   node scripts/import-memory.mjs [--rows 10000,100000] [--concurrency 16] [--dry-run] [--cpu-prof DIR]
//   node scripts/import-memory.mjs --resume-at FRACTION [--resume-delay MS] [--resume-timeout S] [--fresh-audit] [--rows 100000] [--concurrency 16]
//
// Default mode: one JSON line per size:
//   {rows, dry_run, exit, peak_rss_mb, seconds, rows_per_s, database_bytes_per_row}
// and, with several sizes, {rss_ratio} (peak RSS of the largest over the smallest).
//
// --resume-at FRACTION (0 < FRACTION < 1): per size, imports the file, kills the import with
// SIGKILL once FRACTION of the file's total has reached the destination subaccount (its
// total_incoming_in_minor_units, polled every 50 ms with GET /api/subaccounts/{id}), waits for
// the emulator to settle (its total unchanged for 500 ms), waits --resume-delay MS more (default 0;
// the locks a killed process leaves behind are taken over at once, their owner being gone), then
// runs the same command again. One JSON line per size:
//   {rows, resume_at, resume_delay_ms, killed_at_rows, first_exit, exit, resume_start_ms, resume_first_sent_ms, resume_seconds,
//    peak_rss_mb, first_peak_rss_mb, created, replayed, already_done, total_minor, balance_minor,
//    total_overall_minor, stopped_after_s, resume_rows_per_s, exactly_once}
// resume_start_ms: from spawning the re-run to the first new move reaching the emulator (the
// destination's total_incoming rises above what it was after the kill; polled every 20 ms, so up
// to 20 ms late). resume_first_sent_ms: from spawning the re-run to its first journal record (the
// database's write-ahead log grows: the first row handed to the sender; records are committed
// every 50 ms).
// killed_at_rows: rows whose moves had reached the emulator at the kill (estimated from the
// destination's total, the amounts being evenly spread). exactly_once: the re-run exited 0 and
// the destination's total equals the file's total (every row moved once, none twice).
// --resume-timeout S stops the re-run with SIGINT after S seconds (it finishes the moves in flight
// and prints its summary): stopped_after_s is then S, and exactly_once means the destination's
// total equals the summary's total_overall (every row done so far moved once, none twice).
// --fresh-audit runs the re-run with a config directory of its own (an empty audit trail, and so
// none of the killed run's audit lock or history): the import's own part of a resume, apart from
// the audit trail's (fresh_audit: true in the output).
// peak_rss_mb is the re-run's, first_peak_rss_mb the killed run's. --cpu-prof DIR profiles the re-run.
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {BIN, cleanEnv, option as opt, procKb, startEmulator as start} from './measure.mjs'

const argv = process.argv.slice(2)
const SIZES = opt('rows', '10000,100000').split(',').map(Number)
const CONCURRENCY = Number(opt('concurrency', '16'))
const DRY = argv.includes('--dry-run')
const PROF = opt('cpu-prof', undefined)
const RESUME_AT = opt('resume-at', undefined) === undefined ? undefined : Number(opt('resume-at'))
const RESUME_DELAY = Number(opt('resume-delay', '0'))
const FRESH_AUDIT = argv.includes('--fresh-audit')
const RESUME_TIMEOUT = opt('resume-timeout', undefined) === undefined ? undefined : Number(opt('resume-timeout'))
if (RESUME_AT !== undefined && !(RESUME_AT > 0 && RESUME_AT < 1)) throw new Error('--resume-at takes a fraction between 0 and 1')
const {work, env} = cleanEnv('payops-import-mem-')
const peakOf = (pid) => procKb(pid, 'VmHWM')

function run(args, extraEnv = {}, nodeArgs = [], onSpawn = undefined) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {env: {...env, ...extraEnv}, stdio: ['ignore', 'pipe', 'pipe']})
    onSpawn?.(child, started)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    let peakKb = 0
    const timer = setInterval(() => (peakKb = Math.max(peakKb, peakOf(child.pid))), 25)
    child.once('error', reject)
    child.once('exit', (code) => {
      clearInterval(timer)
      resolve({code, stdout, stderr, peakKb, ms: Number(process.hrtime.bigint() - started) / 1e6})
    })
  })
}

const startEmulator = () => start(env)

const emu = await startEmulator()
const as = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.key}

/** The destination's total incoming, in minor units, through the public API. */
async function incoming(id) {
  const res = await fetch(`${emu.baseUrl}/api/subaccounts/${id}`, {headers: {'x-api-key': emu.key}})
  if (!res.ok) throw new Error(`GET /api/subaccounts/${id}: ${res.status}`)
  const body = await res.json()
  return Number((body.data ?? body).total_incoming_in_minor_units)
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
/** The import database of `file` and its write-ahead log: their paths, and their size together. */
const databaseOf = (file) => [`${file}.payops-import.sqlite`, `${file}.payops-import.sqlite-wal`, `${file}.payops-import.sqlite-shm`]
const databaseBytes = (file) => databaseOf(file).slice(0, 2).reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0)
const msSince = (t) => Math.round(Number(process.hrtime.bigint() - t) / 1e6)

/** Import, kill -9 at RESUME_AT of the total, re-run: see the header. */
async function resumeAt(n, file, total, b) {
  const args = ['moves', 'import', file, '--yes', '--concurrency', String(CONCURRENCY), '-o', 'json']
  const before = await incoming(b)
  const first = await run(args, as, [], (child) => {
    const poll = async () => {
      while (child.exitCode === null && child.signalCode === null) {
        const got = (await incoming(b)) - before
        if (got >= RESUME_AT * total) {
          child.kill('SIGKILL')
          return
        }
        await sleep(50)
      }
    }
    void poll()
  })
  // Moves the killed run had on the wire land (or not): wait until the total holds still.
  let settled = await incoming(b)
  for (let same = 0; same < 5; ) {
    await sleep(100)
    const now = await incoming(b)
    same = now === settled ? same + 1 : 0
    settled = now
  }
  const killedAt = settled - before
  await sleep(RESUME_DELAY)
  let startMs
  let sentMs
  const journalSize = databaseBytes(file)
  let stopped = null
  const rerunEnv = FRESH_AUDIT ? {...as, PAYOPS_CONFIG_DIR: mkdtempSync(join(work, 'rerun-'))} : as
  const second = await run(args, rerunEnv, PROF ? ['--cpu-prof', '--cpu-prof-dir', PROF] : [], (child, started) => {
    if (RESUME_TIMEOUT) {
      const timer = setTimeout(() => {
        stopped = RESUME_TIMEOUT
        child.kill('SIGINT')
      }, RESUME_TIMEOUT * 1000)
      child.once('exit', () => clearTimeout(timer))
    }
    const poll = async () => {
      while (child.exitCode === null && child.signalCode === null && (startMs === undefined || sentMs === undefined)) {
        if (sentMs === undefined && databaseBytes(file) > journalSize) sentMs = msSince(started)
        if (startMs === undefined && (await incoming(b)) > settled) startMs = msSince(started)
        await sleep(20)
      }
    }
    void poll()
  })
  const balance = (await incoming(b)) - before
  let summary = {}
  try {
    summary = JSON.parse(second.stdout)
  } catch {}
  const out = {
    rows: n,
    resume_at: RESUME_AT,
    resume_delay_ms: RESUME_DELAY,
    fresh_audit: FRESH_AUDIT,
    killed_at_rows: Math.round((killedAt / total) * n),
    first_exit: first.code,
    exit: second.code,
    resume_start_ms: startMs ?? null,
    resume_first_sent_ms: sentMs ?? null,
    resume_seconds: Math.round(second.ms / 100) / 10,
    peak_rss_mb: Math.round(second.peakKb / 1024),
    first_peak_rss_mb: Math.round(first.peakKb / 1024),
    created: summary.created,
    replayed: summary.replayed,
    already_done: summary.already_done,
    total_minor: total,
    balance_minor: balance,
    total_overall_minor: summary.total_overall?.USD ?? null,
    stopped_after_s: stopped,
    resume_rows_per_s: Math.round(((summary.created ?? 0) + (summary.replayed ?? 0)) / (second.ms / 1000)),
    exactly_once: stopped ? balance === summary.total_overall?.USD : second.code === 0 && balance === total,
  }
  if (second.code !== 0 && !stopped) out.stderr = second.stderr.slice(-500)
  return out
}

try {
  const sub = async (name) => {
    const r = await run(['subaccounts', 'create', '--name', name, '-o', 'json'], as)
    if (r.code !== 0) throw new Error(r.stderr)
    return JSON.parse(r.stdout).id
  }
  const a = await sub('Mass source')
  const b = await sub('Mass destination')
  const results = []
  for (const n of SIZES) {
    const file = join(work, `moves-${n}.csv`)
    const lines = ['from,to,amount_in_minor_units,metadata.ref']
    let total = 0
    for (let i = 1; i <= n; i++) {
      lines.push(`${a},${b},${1 + (i % 997)},r${i}`)
      total += 1 + (i % 997)
    }
    writeFileSync(file, lines.join('\n') + '\n')
    if (RESUME_AT !== undefined) {
      const out = await resumeAt(n, file, total, b)
      console.log(JSON.stringify(out))
      results.push(out)
      for (const f of [file, ...databaseOf(file)]) rmSync(f, {force: true})
      continue
    }
    const args = ['moves', 'import', file, '--yes', '--concurrency', String(CONCURRENCY), '-o', 'json', ...(DRY ? ['--dry-run'] : [])]
    const r = await run(args, as, PROF ? ['--cpu-prof', '--cpu-prof-dir', PROF] : [])
    const journalBytes = databaseBytes(file)
    const out = {
      rows: n,
      dry_run: DRY,
      exit: r.code,
      peak_rss_mb: Math.round(r.peakKb / 1024),
      seconds: Math.round(r.ms / 100) / 10,
      rows_per_s: Math.round(n / (r.ms / 1000)),
      database_bytes_per_row: Math.round(journalBytes / n),
    }
    if (r.code !== 0) out.stderr = r.stderr.slice(-500)
    console.log(JSON.stringify(out))
    results.push(out)
    for (const f of [file, ...databaseOf(file)]) rmSync(f, {force: true})
  }
  const first = results[0]
  const last = results.at(-1)
  if (results.length > 1 && RESUME_AT === undefined) console.log(JSON.stringify({rss_ratio: Math.round((last.peak_rss_mb / first.peak_rss_mb) * 100) / 100}))
} finally {
  emu.proc.kill('SIGTERM')
  rmSync(work, {recursive: true, force: true})
}
