/**
 * Shell completion's back end, `payops __complete WORDS...`, in-process against the emulator: what
 * it offers for partial command lines, from this machine's files only (never a request), scoped
 * to the key the line would use. The scripts in real shells are in test/smoke/completion.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'
import {withTrailDb} from '../support/trail.js'

let emu: Emulator
const dir = tempDir()
let payroll: string
let vendors: string
let treasury: Array<{id: string; label: string}>
const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})

/** The candidates of a partial line (its last word is the one being typed), as [value, description] pairs, and the directive. */
async function complete(words: string[], opts: RunOptions = {}): Promise<{values: string[]; described: Map<string, string>; directive: number; stdout: string}> {
  const r = await expectNothingSent(emu, () => cli(['__complete', ...words], opts), opts.configDir ?? dir.path)
  expect(r.code, r.stderr).toBe(0)
  expect(r.stderr).toBe('')
  const lines = r.stdout.split('\n')
  expect(lines.pop()).toBe('')
  const last = lines.pop()!
  expect(last).toMatch(/^:\d+$/)
  const described = new Map(lines.map((l) => [l.split('\t')[0], l.split('\t')[1] ?? ''] as [string, string]))
  return {values: [...described.keys()], described, directive: Number(last.slice(1)), stdout: r.stdout}
}

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await cli(['profiles', 'add', 'other', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.test_other})
  payroll = (await cli(['subaccounts', 'create', '--name', 'Payroll'])).json().id
  vendors = (await cli(['subaccounts', 'create', '--name', 'Vendors'])).json().id
  treasury = (await cli(['treasury', 'accounts', 'list'])).json()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('payops __complete: commands and flags', () => {
  it('offers topics and commands with their summaries, and the flags of a command with --no- forms', async () => {
    const top = await complete([''])
    expect(top.values).toEqual(expect.arrayContaining(['moves', 'subaccounts', 'profiles', 'webhooks', 'autocomplete']))
    expect(top.values).not.toContain('__complete')
    expect(top.described.get('moves')).toBe('Move money between subaccounts')
    expect(top.directive).toBe(4)
    expect((await complete(['mo'])).values).toEqual(['moves'])
    expect((await complete(['treasury', 'accounts', ''])).values).toEqual(['balance', 'list', 'update-label'])

    const flags = await complete(['moves', 'create', '--'])
    expect(flags.values).toEqual(expect.arrayContaining(['--from', '--to', '--amount', '--auto-approve', '--no-auto-approve', '--profile', '--output']))
    expect((await complete(['moves', 'create', '--no-a'])).values).toEqual(['--no-auto-approve'])
    // A flag already given is not offered again; a repeatable one is.
    const again = await complete(['moves', 'create', '--from', payroll, '--metadata', 'a=b', '--'])
    expect(again.values).not.toContain('--from')
    expect(again.values).toContain('--metadata')
    // The values a flag lists, after a space, after `=` and as `-o`.
    expect((await complete(['moves', 'create', '--output', ''])).values).toEqual(['table', 'json', 'ndjson', 'csv'])
    expect((await complete(['moves', 'create', '--output=nd'])).values).toEqual(['--output=ndjson'])
    expect((await complete(['subaccounts', 'get', '-o', 'c'])).values).toEqual(['csv'])
  })

  it('asks the shell for file names where a file is taken, and nothing where no value is known', async () => {
    const file = await complete(['moves', 'import', ''])
    expect(file.values).toEqual([])
    expect(file.directive).toBe(0)
    expect((await complete(['webhooks', 'verify', '--payload-file', ''])).directive).toBe(0)
    const free = await complete(['moves', 'create', '--amount', ''])
    expect(free.values).toEqual([])
    expect(free.directive).toBe(4)
    // After `--` every word is an argument: no flags.
    expect((await complete(['moves', 'approve', '--', '--'])).values).toEqual([])
    // A line that names no command offers nothing (and never an error in the line).
    const unknown = await complete(['nosuch', ''])
    expect(unknown.values).toEqual([])
    expect(unknown.directive).toBe(4)
  })
})

describe('payops __complete: values from this machine', () => {
  it('offers the moves awaiting approval made with the key in use, with amount and names; approved and canceled ones go', async () => {
    const p1 = (await cli(['moves', 'create', '--from', payroll, '--to', vendors, '--amount', '12.34', '--no-auto-approve'])).json().id
    const p2 = (await cli(['moves', 'create', '--from', vendors, '--to', payroll, '--amount', '5.00', '--no-auto-approve'])).json().id
    const settled = (await cli(['moves', 'create', '--from', payroll, '--to', vendors, '--amount', '1.00'])).json().id
    const canceled = (await cli(['moves', 'create', '--from', payroll, '--to', vendors, '--amount', '2.00', '--no-auto-approve'])).json().id
    expect((await cli(['moves', 'cancel', canceled])).code).toBe(0)
    // Another key's move (the other profile's entity): its approval would answer 404 with this key.
    const otherFrom = (await cli(['subaccounts', 'create', '--name', 'Other A', '-p', 'other'])).json().id
    const otherTo = (await cli(['subaccounts', 'create', '--name', 'Other B', '-p', 'other'])).json().id
    const theirs = (await cli(['moves', 'create', '--from', otherFrom, '--to', otherTo, '--amount', '3.00', '--no-auto-approve', '-p', 'other'])).json().id

    const r = await complete(['moves', 'approve', ''])
    // Newest first.
    expect(r.values).toEqual([p2, p1])
    expect(r.described.get(p1)).toBe('12.34 USD  Payroll → Vendors')
    expect(r.described.get(p2)).toBe('5.00 USD  Vendors → Payroll')
    expect(r.values).not.toContain(settled)
    expect(r.values).not.toContain(canceled)
    // Each id once on a line; what is typed narrows them.
    expect((await complete(['moves', 'approve', p2, ''])).values).toEqual([p1])
    expect((await complete(['moves', 'approve', p1.slice(0, 6)])).values).toEqual([p1])
    expect((await complete(['moves', 'cancel', ''])).values).toEqual([p2, p1])
    // The key the line would use decides: -p before or after the command, PAYOPS_PROFILE, --api-key.
    expect((await complete(['-p', 'other', 'moves', 'approve', ''])).values).toEqual([theirs])
    expect((await complete(['moves', 'approve', '--profile=other', ''])).values).toEqual([theirs])
    expect((await complete(['moves', 'approve', ''], {env: {PAYOPS_PROFILE: 'other'}})).values).toEqual([theirs])
    expect((await complete(['moves', 'approve', '--api-key', emu.keys.test_other, ''])).values).toEqual([theirs])
    // A profile that does not exist has no key: nothing of anyone's.
    expect((await complete(['-p', 'nosuch', 'moves', 'approve', ''])).values).toEqual([])

    expect((await cli(['moves', 'approve', p1, p2])).code).toBe(0)
    expect((await complete(['moves', 'approve', ''])).values).toEqual([])
  })

  it('offers subaccounts (with names) where a subaccount is asked for, treasury accounts where one is', async () => {
    const from = await complete(['moves', 'create', '--from', ''])
    // The names book is the config dir's (every profile's): the newest first.
    expect(from.values.indexOf(vendors)).toBeLessThan(from.values.indexOf(payroll))
    expect(from.values).toEqual(expect.arrayContaining([vendors, payroll]))
    expect(from.described.get(payroll)).toBe('Payroll')
    for (const t of treasury) expect(from.values).not.toContain(t.id)
    expect((await complete(['moves', 'create', `--to=${payroll.slice(0, 5)}`])).values).toEqual([`--to=${payroll}`])
    expect((await complete(['subaccounts', 'get', ''])).values).toEqual(expect.arrayContaining([payroll, vendors]))
    expect((await complete(['profiles', 'set', 'sandbox', 'allowed-destinations', ''])).values).toEqual(expect.arrayContaining([payroll, vendors]))

    const accounts = await complete(['transfers', 'create', '--from', ''])
    expect(accounts.values.sort()).toEqual(treasury.map((t) => t.id).sort())
    expect(accounts.described.get(treasury[0].id)).toBe(treasury[0].label)
    expect((await complete(['treasury', 'transactions', 'list', ''])).values.sort()).toEqual(treasury.map((t) => t.id).sort())
  })

  it('offers profile names with their mode (never a key) and the settings of profiles set', async () => {
    const r = await complete(['-p', ''])
    expect(r.values).toEqual(['sandbox', 'other'])
    expect(r.described.get('sandbox')).toBe('test key, active')
    expect(r.described.get('other')).toBe('test key')
    expect(r.stdout).not.toContain(emu.keys.test)
    expect((await complete(['profiles', 'use', 'o'])).values).toEqual(['other'])
    expect((await complete(['moves', 'approve', '--profile', ''])).values).toEqual(['sandbox', 'other'])
    expect((await complete(['profiles', 'set', 'sandbox', ''])).values).toEqual(expect.arrayContaining(['max-amount', 'allowed-destinations', 'operator-name']))
  })

  it('offers the webhook endpoints created here with the key in use until they are deleted', async () => {
    const create = (url: string) => cli(['webhooks', 'create', '--url', url, '--event-types', 'payin.settled'])
    const w1 = (await create('http://127.0.0.1:9/one')).json().id
    const w2 = (await create('http://127.0.0.1:9/two')).json().id
    const r = await complete(['webhooks', 'get', ''])
    expect(r.values).toEqual([w2, w1])
    expect(r.described.get(w1)).toMatch(/^created \d{4}-\d\d-\d\d \d\d:\d\d$/)
    expect((await complete(['-p', 'other', 'webhooks', 'delete', ''])).values).toEqual([])
    expect((await cli(['webhooks', 'delete', w1, '--yes'])).code).toBe(0)
    expect((await complete(['webhooks', 'disable', ''])).values).toEqual([w2])
  })
})

describe('payops __complete: what it must never do', () => {
  it('shows a hostile name escaped, drops a value a shell would read as syntax, and skips damaged lines', async () => {
    const cfg = tempDir()
    try {
      const id = '11111111-2222-3333-4444-555555555555'
      writeFileSync(
        join(cfg.path, 'names.json'),
        JSON.stringify({[id]: ['Evil\u001b]0;owned\u0007\tname\nnext', 'subaccount'], 'x; rm -rf ~': ['Bad id', 'subaccount'], legacy: 'Old entry'}),
      )
      withTrailDb(cfg.path, (db) => ['not json at all', '{"kind":"outcome",'].forEach((r, i) => db.prepare("INSERT INTO trail (seq, kind, hash, record) VALUES (?, 'outcome', '0', ?)").run(i + 1, r)))
      const r = await complete(['subaccounts', 'get', ''], {configDir: cfg.path})
      expect(r.values).toEqual([id])
      expect(r.described.get(id)).toBe('Evil\\x1b]0;owned\\x07\\x09name\\x0anext')
      // eslint-disable-next-line no-control-regex
      expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/)
      expect(r.stdout.split('\n')).toHaveLength(3)
    } finally {
      cfg.cleanup()
    }
  })

  it('answers with nothing, not an error, where the profile file is not valid', async () => {
    const cfg = tempDir()
    try {
      writeFileSync(join(cfg.path, 'config.json'), '{not json')
      const r = await complete(['-p', ''], {configDir: cfg.path})
      expect(r.values).toEqual([])
      expect((await complete(['moves', 'approve', ''], {configDir: cfg.path})).values).toEqual([])
      expect((await complete(['moves', ''], {configDir: cfg.path})).values).toContain('approve')
    } finally {
      cfg.cleanup()
    }
  })

  it('reads only the end of a long audit trail', async () => {
    const {TAIL_RECORDS} = await import('../../src/completion/sources.js')
    const cfg = tempDir()
    try {
      const key = emu.keys.test
      writeFileSync(join(cfg.path, 'config.json'), JSON.stringify({active: 's', profiles: {s: {api_key: key, base_url: emu.baseUrl}}}), {mode: 0o600})
      const {keyIdOf} = await import('../../src/api/redact.js')
      const rec = (id: string, n: number) =>
        JSON.stringify({kind: 'outcome', op: `o${n}`, profile: 's', mode: 'test', key_id: keyIdOf(key), method: 'POST', path: '/api/subaccounts/move', status: 201, resource_id: id, resource_status: 'created', amount_in_minor_units: n, currency_code: 'USD', from: 'a', to: 'b', seq: n, time: '2026-01-01T00:00:00Z', pid: 1, prev: '0', hash: '0'})
      const old = 'aaaaaaaa-0000-0000-0000-000000000000'
      const recent = 'bbbbbbbb-0000-0000-0000-000000000000'
      // Outcomes in between (completion does not check the chain) push the first move out of the window read.
      const filler = (n: number) => JSON.stringify({kind: 'outcome', op: `f${n}`, profile: 's', mode: 'test', method: 'POST', path: '/api/webhooks/x/rotate', status: 500})
      const rows = [rec(old, 1), ...Array.from({length: TAIL_RECORDS}, (_, i) => filler(i)), rec(recent, TAIL_RECORDS + 2)]
      withTrailDb(cfg.path, (db) => db.transaction(() => rows.forEach((r, i) => db.prepare("INSERT INTO trail (seq, kind, hash, record) VALUES (?, 'outcome', '0', ?)").run(i + 1, r))))
      expect((await complete(['moves', 'approve', ''], {configDir: cfg.path})).values).toEqual([recent])
    } finally {
      cfg.cleanup()
    }
  })
})

describe('payops autocomplete', () => {
  it('prints how to load the script, and the script of each shell', async () => {
    const bash = await cli(['autocomplete', 'bash'])
    expect(bash.code, bash.stderr).toBe(0)
    expect(bash.stdout).toContain('eval "$(payops autocomplete script bash)"')
    const fromShell = await cli(['autocomplete'], {env: {SHELL: '/usr/bin/fish'}})
    expect(fromShell.stdout).toContain('payops autocomplete script fish > ~/.config/fish/completions/payops.fish')
    const scripts = {bash: 'complete -o default -F _payops_complete payops', zsh: 'compdef _payops payops', fish: "complete -c payops -f -k -a '(__payops_complete)'"}
    for (const [shell, line] of Object.entries(scripts)) {
      const r = await cli(['autocomplete', 'script', shell])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(line)
      expect(r.stdout).toContain('__complete')
    }
  })

  it('refuses a shell it does not complete (exit 2)', async () => {
    const bad = await cli(['autocomplete', 'script', 'powershell'])
    expect(bad.code).toBe(2)
    expect(bad.stdout).toBe('')
    const unknown = await cli(['autocomplete'], {env: {SHELL: '/bin/tcsh'}})
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/bash, zsh, fish.*\/bin\/tcsh/)
    expect(unknown.stdout).toBe('')
  })
})
