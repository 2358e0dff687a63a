#!/usr/bin/env node
// The quick-start demo: starts the embedded emulator, creates two subaccounts, moves money,
// shows the activity, and stops the emulator. Everything runs through bin/run.js, as a user would.
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin/run.js')
const configDir = mkdtempSync(join(tmpdir(), 'payops-demo-'))
const env = {...process.env, PAYOPS_CONFIG_DIR: configDir}
for (const k of ['PAYOPS_API_KEY', 'PAYOPS_BASE_URL', 'PAYOPS_PROFILE']) delete env[k]

function payops(args, {quiet = false} = {}) {
  if (!quiet) process.stdout.write(`\n$ payops ${args.join(' ')}\n`)
  const r = spawnSync(process.execPath, [bin, ...args], {env, encoding: 'utf8'})
  if (!quiet && r.stderr) process.stdout.write(r.stderr)
  if (!quiet) process.stdout.write(r.stdout)
  if (r.status !== 0) throw new Error(`payops ${args.join(' ')} exited with ${r.status}: ${r.stderr}`)
  return r.stdout
}

const emulator = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '--json', '--write-profile', 'demo'], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
})
const stop = () => new Promise((resolve) => {
  if (emulator.exitCode !== null) return resolve()
  emulator.once('exit', resolve)
  emulator.kill('SIGTERM')
})

try {
  const line = await new Promise((resolve, reject) => {
    createInterface({input: emulator.stdout}).once('line', resolve)
    emulator.once('exit', (code) => reject(new Error(`the emulator exited with ${code}`)))
  })
  const {base_url: baseUrl} = JSON.parse(line)
  process.stdout.write(`payops demo: emulator running at ${baseUrl}; profile "demo" written to a temporary config dir.\n`)
  const a = JSON.parse(payops(['subaccounts', 'create', '--name', 'Operating', '-o', 'json'], {quiet: true}))
  payops(['subaccounts', 'get', a.id, '-o', 'table'])
  const b = JSON.parse(payops(['subaccounts', 'create', '--name', 'Payroll', '-o', 'json'], {quiet: true}))
  process.stdout.write(`\nCreated subaccounts Operating (${a.id}) and Payroll (${b.id}).\n`)
  payops(['moves', 'create', '--from', a.id, '--to', b.id, '--amount', '1250.00', '--metadata', 'purpose=payroll', '-o', 'table'])
  const pending = JSON.parse(payops(['moves', 'create', '--from', b.id, '--to', a.id, '--amount', '99.95', '--no-auto-approve', '-o', 'json'], {quiet: true}))
  payops(['moves', 'approve', pending.id, '-o', 'table'])
  payops(['subaccounts', 'activity', b.id, '-o', 'table'])
  payops(['subaccounts', 'get', b.id, '-o', 'table', '--columns', 'name,incoming,outgoing'])
  process.stdout.write('\nDemo complete: stopping the emulator.\n')
} catch (err) {
  process.stderr.write(`demo failed: ${err.message}\n`)
  process.exitCode = 1
} finally {
  await stop()
  rmSync(configDir, {recursive: true, force: true})
}
