/**
 * The completion scripts in real shells, each calling a real `payops` process (bin/run.js, which
 * answers `__complete` without loading oclif): bash always (it is on every machine payops is built
 * on); zsh and fish where they are installed (the in-process tests check their scripts' text).
 *
 * bash is driven as its completion system drives it: COMP_LINE, COMP_POINT, COMP_WORDS (split at
 * COMP_WORDBREAKS, so `--to=ID` is three words) and COMP_CWORD, then the function, then COMPREPLY.
 * zsh runs the script with its completion builtins stubbed (they need a terminal) to print what
 * it hands them; fish answers `complete -C LINE` for real.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {chmodSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, cleanEnv, run, startEmulator, tempDir, type Emulator} from '../support/index.js'

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0

let emu: Emulator
const dir = tempDir()
const bin = tempDir()
let payroll: string
let vendors: string
let pending: string[] = []

/** The environment of a shell: `payops` on PATH (bin/run.js), the test's config dir. */
const env = () => cleanEnv({PATH: `${bin.path}:${process.env.PATH}`, PAYOPS_CONFIG_DIR: dir.path, COLUMNS: '100'})

beforeAll(async () => {
  emu = await startEmulator()
  const cli = (args: string[], input?: string) => run(args, {configDir: dir.path, input})
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], emu.keys.test)
  payroll = (await cli(['subaccounts', 'create', '--name', 'Payroll'])).json().id
  vendors = (await cli(['subaccounts', 'create', '--name', 'Vendors'])).json().id
  for (const amount of ['12.34', '5.00']) pending.push((await cli(['moves', 'create', '--from', payroll, '--to', vendors, '--amount', amount, '--no-auto-approve'])).json().id)
  pending = pending.reverse()
  const wrapper = join(bin.path, 'payops')
  writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
  chmodSync(wrapper, 0o755)
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
  bin.cleanup()
})

/** COMPREPLY for a line whose words (as bash splits them) are `words`, the cursor at the end. */
function bash(words: string[]): string[] {
  const line = words.join(' ').replace(/ = /g, '=').replace(/ =$/, '=')
  const script = [
    'eval "$(payops autocomplete script bash)"',
    `COMP_LINE=${JSON.stringify(line)}`,
    'COMP_POINT=${#COMP_LINE}',
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_payops_complete',
    '(( ${#COMPREPLY[@]} )) && printf "%s\\n" "${COMPREPLY[@]}"',
    'true',
  ].join('\n')
  return execFileSync('bash', ['-c', script], {env: env(), encoding: 'utf8'}).split('\n').slice(0, -1)
}

describe('bash', () => {
  it('completes commands, flags and the moves awaiting approval (with their amounts and names)', () => {
    expect(bash(['payops', 'mo'])).toEqual(['moves'])
    expect(bash(['payops', 'moves', 'create', '--no-a'])).toEqual(['--no-auto-approve'])
    // Several values: one a line, each with its description, cut to the terminal's width.
    const moves = bash(['payops', 'moves', 'approve', ''])
    expect(moves).toHaveLength(2)
    expect(moves[0]).toMatch(new RegExp(`^${pending[0]}  \\(5\\.00 USD  Payroll → Vendors\\) +$`))
    expect(moves[1]).toMatch(new RegExp(`^${pending[1]}  \\(12\\.34 USD  Payroll → Vendors\\) +$`))
    expect(moves[0]).toHaveLength(99)
    // One value: inserted bare.
    expect(bash(['payops', 'moves', 'approve', pending[1].slice(0, 6)])).toEqual([pending[1]])
  })

  it('completes after `=` and `:`, which bash splits off as words of their own', () => {
    // `--to=` is the words `--to` `=`: the word bash replaces is `=`.
    expect(bash(['payops', 'moves', 'create', '--output', '=', 'nd'])).toEqual(['ndjson'])
    const to = bash(['payops', 'moves', 'create', '--to', '=', vendors.slice(0, 4)])
    expect(to).toEqual([vendors])
    expect(bash(['payops', 'moves', 'create', '--from', payroll, '--output', '='])).toEqual(expect.arrayContaining(['=json', '=csv']))
  })

  it('falls back to file names where a file is taken, and offers none where a value is not a file', () => {
    writeFileSync(join(dir.path, 'rows.csv'), 'from,to,amount\n')
    expect(bash(['payops', 'moves', 'import', join(dir.path, 'rows.')])).toEqual([join(dir.path, 'rows.csv')])
    expect(bash(['payops', 'moves', 'create', '--amount', ''])).toEqual([])
  })
})

describe.skipIf(!has('zsh'))('zsh', () => {
  /** What the script hands _describe (or that it asked for _files), for `words` with the cursor on the last. */
  function zsh(words: string[]): string[] {
    const script = [
      'compdef() { :; }',
      '_describe() { print -rl -- "${(@P)4}"; }',
      '_files() { print -r -- "(files)"; }',
      'eval "$(payops autocomplete script zsh)"',
      `words=(${words.map((w) => `'${w}'`).join(' ')})`,
      `CURRENT=${words.length}`,
      '_payops',
    ].join('\n')
    return execFileSync('zsh', ['-f', '-c', script], {env: env(), encoding: 'utf8'}).split('\n').slice(0, -1)
  }

  it('hands _describe each value with its description, and _files where a file is taken', () => {
    expect(zsh(['payops', 'moves', 'approve', ''])).toEqual([`${pending[0]}:5.00 USD  Payroll → Vendors`, `${pending[1]}:12.34 USD  Payroll → Vendors`])
    expect(zsh(['payops', 'moves', 'create', '--to='])).toEqual(expect.arrayContaining([`--to=${vendors}:Vendors`]))
    expect(zsh(['payops', 'moves', 'import', ''])).toEqual(['(files)'])
    expect(zsh(['payops', 'moves', 'create', '--amount', ''])).toEqual([])
  })
})

describe.skipIf(!has('fish'))('fish', () => {
  function fish(line: string): string[] {
    const script = `payops autocomplete script fish | source; complete -C ${JSON.stringify(line)}`
    return execFileSync('fish', ['--no-config', '-c', script], {env: env(), encoding: 'utf8'}).split('\n').slice(0, -1)
  }

  it('completes with descriptions, in the order given', () => {
    expect(fish('payops moves approve ')).toEqual([`${pending[0]}\t5.00 USD  Payroll → Vendors`, `${pending[1]}\t12.34 USD  Payroll → Vendors`])
    expect(fish('payops moves create --no-a')).toEqual([expect.stringMatching(/^--no-auto-approve\t/)])
    expect(fish('payops -p ')).toEqual(['sandbox\ttest key, active'])
    writeFileSync(join(dir.path, 'rows.csv'), 'from,to,amount\n')
    expect(fish(`payops moves import ${join(dir.path, 'rows.')}`)).toEqual([join(dir.path, 'rows.csv')])
  })
})
