/**
 * What a one-shot command loads in a real process (what only a process shows: the modules Node
 * loaded). `subaccounts get ID -o json` takes Node's own HTTP client and payops' command straight
 * from its file: Node's fetch (undici, its WebAssembly parser) is not loaded, nor the undici
 * package, nor oclif's Config, plugins and Help; V8's flags are left as they are, so Node's own
 * modules keep their code cache. `--help` still goes through oclif's full runner.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cleanEnv, exec, startEmulator, tempDir, type Emulator} from './process.js'

const dir = tempDir('payops-loads-')
let emu: Emulator

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

/** A loader hook (its own thread) that appends every module URL Node loads to LOADS_FILE. */
const HOOK = `import {appendFileSync} from 'node:fs'
export async function load(url, context, next) {
  appendFileSync(process.env.LOADS_FILE, url + '\\n')
  return next(url, context)
}
`
/** Registers the hook; at exit, writes Node's own module list and V8's liftoff flag as seen then. */
const PRELOAD = `import {register} from 'node:module'
import {appendFileSync} from 'node:fs'
register(${JSON.stringify(pathToFileURL(join(dir.path, 'hook.mjs')).href)})
process.on('exit', () => appendFileSync(process.env.BUILTINS_FILE, process.moduleLoadList.join('\\n')))
`

interface Loads {
  code: number
  stdout: string
  stderr: string
  /** The files of payops' bundle (dist/) that were loaded. */
  bundle: string[]
  /** Node's own modules and bindings (process.moduleLoadList). */
  builtins: string[]
}

async function loadsOf(args: string[]): Promise<Loads> {
  writeFileSync(join(dir.path, 'hook.mjs'), HOOK)
  writeFileSync(join(dir.path, 'preload.mjs'), PRELOAD)
  const loads = join(dir.path, 'loads.txt')
  const builtins = join(dir.path, 'builtins.txt')
  writeFileSync(loads, '')
  writeFileSync(builtins, '')
  const env = cleanEnv({PAYOPS_CONFIG_DIR: join(dir.path, 'config'), PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test, LOADS_FILE: loads, BUILTINS_FILE: builtins})
  const r = await exec(process.execPath, ['--import', pathToFileURL(join(dir.path, 'preload.mjs')).href, BIN, ...args], {env})
  const bundle = readFileSync(loads, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith('file:') && u.includes('/dist/'))
    .map((u) => fileURLToPath(u))
  return {...r, bundle, builtins: readFileSync(builtins, 'utf8').split('\n')}
}

/** Whether any loaded bundle file holds this text (oclif's code is bundled: its strings mark it). */
const holds = (files: string[], text: string) => files.some((f) => readFileSync(f, 'utf8').includes(text))

describe('a one-shot read in a real process', () => {
  it('loads neither Node\'s fetch nor undici nor oclif\'s Config and Help, and answers', async () => {
    const created = await fetch(`${emu.baseUrl}/api/subaccounts`, {method: 'POST', headers: {'x-api-key': emu.keys.test, 'content-type': 'application/json'}, body: JSON.stringify({name: 'Loads'})})
    const {data} = (await created.json()) as {data: {id: string}}
    const r = await loadsOf(['subaccounts', 'get', data.id, '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({id: data.id, name: 'Loads'})
    expect(r.bundle.some((f) => f.endsWith(join('dist', 'commands', 'subaccounts', 'get.js')))).toBe(true)
    // Node's fetch is undici, bundled in Node: its module is loaded on first use.
    expect(r.builtins.filter((m) => m.includes('undici'))).toEqual([])
    expect(r.builtins).toContain('NativeModule _http_client')
    expect(r.bundle.filter((f) => /undici/.test(f))).toEqual([])
    // oclif's Config (its performance marks' names) and Help (the method that shows a command's help).
    expect(holds(r.bundle, 'config.runCommand#')).toBe(false)
    expect(holds(r.bundle, 'showCommandHelp')).toBe(false)
  })

  it('--help still goes through oclif\'s Config and Help', async () => {
    const r = await loadsOf(['subaccounts', 'get', '--help'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/USAGE/)
    expect(holds(r.bundle, 'config.runCommand#')).toBe(true)
    expect(holds(r.bundle, 'showCommandHelp')).toBe(true)
  })
})
