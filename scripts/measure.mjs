// What the measuring scripts (bench.mjs, import-memory.mjs, emulator-memory.mjs) share: the
// payops entry point, a clean environment with its own config dir, command-line options, memory
// readings from /proc, and the emulator started as a real process. Public tools only.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const BIN = join(ROOT, 'bin/run.js')

/** A temporary config dir and an environment that uses it, with no key, base URL or profile inherited. */
export function cleanEnv(prefix) {
  const work = mkdtempSync(join(tmpdir(), prefix))
  const env = {...process.env, PAYOPS_CONFIG_DIR: work, NO_COLOR: '1'}
  for (const k of ['PAYOPS_API_KEY', 'PAYOPS_BASE_URL', 'PAYOPS_PROFILE', 'PAYOPS_DEBUG']) delete env[k]
  return {work, env}
}

/** `--name VALUE` from the command line, or the default. */
export function option(name, dflt, argv = process.argv.slice(2)) {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : dflt
}

/** A field of /proc/PID/status in kB (VmHWM: peak RSS, VmRSS: RSS now); 0 when the process is gone. */
export function procKb(pid, field) {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

/** `payops emulator start --port 0 --json` as a process; its base URL and test key. */
export async function startEmulator(env, nodeArgs = []) {
  const proc = spawn(process.execPath, [...nodeArgs, BIN, 'emulator', 'start', '--port', '0', '--json'], {env, stdio: ['ignore', 'pipe', 'inherit']})
  const line = await new Promise((resolve, reject) => {
    createInterface({input: proc.stdout}).once('line', resolve)
    proc.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)))
  })
  const info = JSON.parse(line)
  return {proc, baseUrl: info.base_url, key: info.keys.test}
}
