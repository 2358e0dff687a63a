#!/usr/bin/env node
// Measures `payops moves import` on generated N-row CSVs against its own emulator: peak RSS of the
// import process (VmHWM, polled from /proc), wall time, rows/s and journal bytes per row.
// Public tools only (child_process, /proc). Usage:
//   node scripts/import-memory.mjs [--rows 10000,100000] [--concurrency 16] [--dry-run] [--cpu-prof DIR]
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = join(ROOT, 'bin/run.js')
const argv = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}
const SIZES = opt('rows', '10000,100000').split(',').map(Number)
const CONCURRENCY = Number(opt('concurrency', '16'))
const DRY = argv.includes('--dry-run')
const PROF = opt('cpu-prof', undefined)
const work = mkdtempSync(join(tmpdir(), 'payops-import-mem-'))
const env = {...process.env, PAYOPS_CONFIG_DIR: work, NO_COLOR: '1'}
for (const k of ['PAYOPS_API_KEY', 'PAYOPS_BASE_URL', 'PAYOPS_PROFILE', 'PAYOPS_DEBUG']) delete env[k]

function peakOf(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

function run(args, extraEnv = {}, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {env: {...env, ...extraEnv}, stdio: ['ignore', 'pipe', 'pipe']})
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

async function startEmulator() {
  const proc = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json'], {env, stdio: ['ignore', 'pipe', 'pipe']})
  const line = await new Promise((resolve, reject) => {
    createInterface({input: proc.stdout}).once('line', resolve)
    proc.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)))
  })
  const info = JSON.parse(line)
  return {proc, baseUrl: info.base_url, key: info.keys.test}
}

const emu = await startEmulator()
const as = {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.key}
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
    for (let i = 1; i <= n; i++) lines.push(`${a},${b},${1 + (i % 997)},r${i}`)
    writeFileSync(file, lines.join('\n') + '\n')
    const args = ['moves', 'import', file, '--yes', '--concurrency', String(CONCURRENCY), '-o', 'json', ...(DRY ? ['--dry-run'] : [])]
    const r = await run(args, as, PROF ? ['--cpu-prof', '--cpu-prof-dir', PROF] : [])
    const journal = `${file}.payops-journal.jsonl`
    const journalBytes = existsSync(journal) ? statSync(journal).size : 0
    const out = {
      rows: n,
      dry_run: DRY,
      exit: r.code,
      peak_rss_mb: Math.round(r.peakKb / 1024),
      seconds: Math.round(r.ms / 100) / 10,
      rows_per_s: Math.round(n / (r.ms / 1000)),
      journal_bytes_per_row: Math.round(journalBytes / n),
    }
    if (r.code !== 0) out.stderr = r.stderr.slice(-500)
    console.log(JSON.stringify(out))
    results.push(out)
    rmSync(file, {force: true})
    rmSync(journal, {force: true})
  }
  const first = results[0]
  const last = results.at(-1)
  if (results.length > 1) console.log(JSON.stringify({rss_ratio: Math.round((last.peak_rss_mb / first.peak_rss_mb) * 100) / 100}))
} finally {
  emu.proc.kill('SIGTERM')
  rmSync(work, {recursive: true, force: true})
}
