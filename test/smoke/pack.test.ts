/**
 * Installable: the package as npm would publish it (`npm pack`) installs globally into a temporary
 * prefix, and the installed `payops` answers --version, starts the emulator and runs a command
 * against it. Uses the build already in dist/ (`npm test` builds first); dependencies come from
 * npm's cache when it has them, else from the registry.
 */
import {spawn} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {delimiter, dirname, join} from 'node:path'
import {createInterface} from 'node:readline'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ROOT, cleanEnv, exec as run, tempDir} from './process.js'

const dir = tempDir('payops-pack-')
const prefix = join(dir.path, 'prefix')
const configDir = join(dir.path, 'config')
const bin = join(prefix, 'bin', 'payops')
/** The Node running the tests runs the installed CLI too (its `#!/usr/bin/env node`). */
const env = cleanEnv({PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, PAYOPS_CONFIG_DIR: configDir, NO_COLOR: '1'})
const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string

function exec(cmd: string, args: string[], opts: {cwd?: string; env?: NodeJS.ProcessEnv} = {}): Promise<{code: number; stdout: string; stderr: string}> {
  return run(cmd, args, {cwd: opts.cwd ?? dir.path, env: opts.env ?? env})
}

let files: string[] = []

beforeAll(async () => {
  // --ignore-scripts: `prepare` would rebuild dist/ while other test files use it.
  const packed = await exec('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir.path], {cwd: ROOT})
  expect(packed.code, packed.stderr).toBe(0)
  const [info] = JSON.parse(packed.stdout) as Array<{filename: string; files: Array<{path: string}>}>
  files = info.files.map((f) => f.path)
  const installed = await exec('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(dir.path, info.filename)])
  expect(installed.code, installed.stderr).toBe(0)
}, 300_000)

afterAll(() => dir.cleanup())

describe('the packed package', () => {
  it('carries the built CLI and nothing else', () => {
    // dist/emulator.js: the emulator's own command line, which `payops emulator start` runs in a child process.
    for (const f of ['package.json', 'README.md', 'oclif.manifest.json', 'bin/run.js', 'bin/package.json', 'dist/entry.js', 'dist/command-table.json', 'dist/emulator.js']) expect(files).toContain(f)
    const allowed = (f: string) => f.startsWith('dist/') || ['package.json', 'README.md', 'LICENSE', 'oclif.manifest.json', 'bin/run.js', 'bin/package.json'].includes(f)
    expect(files.filter((f) => !allowed(f))).toEqual([])
  })

  it('installs globally and the installed payops works against its own emulator', async () => {
    expect(existsSync(bin)).toBe(true)
    const v = await exec(bin, ['--version'])
    expect(v.code, v.stderr).toBe(0)
    expect(v.stdout).toBe(`payops/${version} ${process.platform}-${process.arch} node-${process.version}\n`)

    // Help and a mistyped command go through oclif's full runner, which requires the packages it
    // uses on rare paths (text wrapping, templates) from the installed node_modules.
    const help = await exec(bin, ['subaccounts', '--help'])
    expect(help.code, help.stderr).toBe(0)
    expect(help.stdout).toMatch(/USAGE\n {2}\$ payops subaccounts COMMAND/)
    // Shell completion (its own CommonJS file, dist/completion.cjs).
    const tab = await exec(bin, ['__complete', 'subacc'])
    expect(tab.code, tab.stderr).toBe(0)
    expect(tab.stdout).toMatch(/^subaccounts\t/m)
    const typo = await exec(bin, ['subacounts', 'get', 'x'])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/Unknown command "subacounts get"\. Did you mean "subaccounts get"\?/)

    // The installed emulator (dist/emulator.js, run in a child process), with its SQLite state file.
    const emu = spawn(bin, ['emulator', 'start', '--port', '0', '--json', '--state', join(dir.path, 'packed.sqlite')], {env, stdio: ['ignore', 'pipe', 'pipe']})
    const exited = new Promise<number | null>((resolve) => emu.once('exit', (code) => resolve(code)))
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({input: emu.stdout!}).once('line', resolve)
        emu.once('exit', (code) => reject(new Error(`the installed emulator exited with ${code}`)))
      })
      const {base_url: baseUrl, keys} = JSON.parse(line) as {base_url: string; keys: {test: string}}
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const created = await exec(bin, ['subaccounts', 'create', '--name', 'Packed', '-o', 'json'], {env: {...env, PAYOPS_BASE_URL: baseUrl, PAYOPS_API_KEY: keys.test}})
      expect(created.code, created.stderr).toBe(0)
      expect(JSON.parse(created.stdout)).toMatchObject({name: 'Packed'})
      expect(created.stdout + created.stderr).not.toContain(keys.test)
    } finally {
      if (emu.exitCode === null) emu.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
    expect(existsSync(join(dir.path, 'packed.sqlite'))).toBe(true)
  }, 120_000)
})
