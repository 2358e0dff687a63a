/**
 * Dispatch: mistyped commands never run (exit 2 with a suggestion, on a terminal too), global
 * flags work before the topic, and exit 127 never appears. In-process; `payops -p NAME subaccounts
 * get ID` in a real process is in test/smoke/process.test.ts.
 */
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'
import {readAudit} from '../../src/audit/index.js'

let emu: Emulator
const dir = tempDir()
let from: string
let to: string
/** A subaccount of the other test entity, visible only through the `other` profile. */
let otherSub: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
const auditLines = () => readAudit(dir.path).length
async function totals(id: string): Promise<{incoming: number; outgoing: number}> {
  const r = await cli(['subaccounts', 'get', id])
  expect(r.code, r.stderr).toBe(0)
  const s = r.json()
  return {incoming: s.total_incoming_in_minor_units, outgoing: s.total_outgoing_in_minor_units}
}

beforeAll(async () => {
  // `sandbox` (the test entity) is the active profile; `other` (the other test entity) is not.
  emu = await startEmulator(['--write-profile', 'sandbox'], dir.path)
  const added = await run(['profiles', 'add', 'other', '--base-url', emu.baseUrl, '--key-stdin'], {configDir: dir.path, input: emu.keys.test_other})
  expect(added.code, added.stderr).toBe(0)
  from = (await cli(['subaccounts', 'create', '--name', 'DispatchFrom'])).json().id
  to = (await cli(['subaccounts', 'create', '--name', 'DispatchTo'])).json().id
  const created = await cli(['subaccounts', 'create', '--name', 'OtherEntity', '--profile', 'other'])
  expect(created.code, created.stderr).toBe(0)
  otherSub = created.json().id
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('a mistyped command', () => {
  it('exits 2 with the suggestion and sends nothing', async () => {
    const before = await totals(from)
    const audit = auditLines()
    const r = await expectNothingSent(emu, () => cli(['moves', 'craete', '--from', from, '--to', to, '--amount', '1']), dir.path)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toMatch(/Unknown command "moves craete"\. Did you mean "moves create"\?/)
    expect(r.stdout).toBe('')
    expect(await totals(from)).toEqual(before)
    expect(auditLines()).toBe(audit)
  })

  it('exits 2 on a terminal too, without asking and without running the suggestion', async () => {
    const before = await totals(from)
    const audit = auditLines()
    // Were a "Did you mean ...? (Y/n)" prompt to appear, the answer would accept it.
    const r = await expectNothingSent(emu, () => cli(['moves', 'craete', '--from', from, '--to', to, '--amount', '1'], {tty: true, answers: ['y', 'y']}), dir.path)
    expect(r.code, r.stderr).toBe(2)
    expect(r.asked).toEqual([])
    expect(r.stderr + r.stdout).not.toMatch(/\(Y\/n\)/)
    expect(r.stderr).toMatch(/Unknown command "moves craete"\. Did you mean "moves create"\?/)
    expect(r.stdout).toBe('')
    expect(await totals(from)).toEqual(before)
    expect(auditLines()).toBe(audit)
  })

  it('with --json writes the usage error as JSON on stderr', async () => {
    for (const args of [['moves', 'craete', '--json', '--from', from], ['--json', 'moves', 'craete'], ['-o', 'json', 'subacounts', 'get', from]]) {
      const r = await cli(args)
      expect(r.code, r.stderr).toBe(2)
      const line = r.stderr.trim().split('\n').find((l) => l.startsWith('{'))
      expect(line, r.stderr).toBeDefined()
      const err = JSON.parse(line!).error
      expect(err).toMatchObject({type: 'UsageError', exit_code: 2})
      expect(err.message).toMatch(/^Unknown command "/)
      expect(err.message).toMatch(/Did you mean "(moves create|subaccounts get)"\?/)
    }
  })

  it('never exits 127', async () => {
    const lines = [['moves'], ['frobnicate'], ['moves', 'help'], ['subaccounts', 'gte', from], ['--debug'], ['-p'], ['help', 'moves', 'craete'], ['moves', 'craete', '--help']]
    for (const args of lines) {
      const r = await cli(args)
      expect(r.code, `payops ${args.join(' ')}: ${r.stderr}`).not.toBe(127)
      expect([0, 2], `payops ${args.join(' ')}: ${r.stderr}`).toContain(r.code)
    }
    const topic = await cli(['moves'])
    expect(topic.code).toBe(0)
    expect(topic.stdout).toMatch(/moves create/)
  })
})

describe('global flags before the topic', () => {
  it('-p NAME selects the profile, in every spelling', async () => {
    // The active profile (another entity) does not see the subaccount.
    const active = await cli(['subaccounts', 'get', otherSub])
    expect(active.code).toBe(4)
    for (const flag of [['-p', 'other'], ['-pother'], ['--profile', 'other'], ['--profile=other']]) {
      const r = await cli([...flag, 'subaccounts', 'get', otherSub])
      expect(r.code, `${flag.join(' ')}: ${r.stderr}`).toBe(0)
      expect(r.json().id).toBe(otherSub)
    }
  })

  it('--json and -o csv before the topic choose the output', async () => {
    const moved = await cli(['--json', 'moves', 'create', '--from', from, '--to', to, '--amount', '0.01'])
    expect(moved.code, moved.stderr).toBe(0)
    expect(moved.json()).toMatchObject({status: 'settled', amount_in_minor_units: 1})
    const csv = await cli(['-o', 'csv', 'subaccounts', 'get', from])
    expect(csv.code, csv.stderr).toBe(0)
    expect(csv.stdout).toMatch(/^id,name,/)
    expect(csv.stdout).toContain(from)
    const payers = await cli(['-o', 'csv', 'payers', 'list'])
    expect(payers.code, payers.stderr).toBe(0)
    expect(payers.stdout).toMatch(/^id,/)
  })

  it('--debug --base-url URL before the topic', async () => {
    const r = await cli(['--debug', '--base-url', emu.baseUrl, 'subaccounts', 'get', from])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().id).toBe(from)
    expect(r.stderr).toMatch(/\[debug\]/)
  })

  it('an unknown leading flag is a usage error naming it', async () => {
    const r = await cli(['--frobnicate', 'subaccounts', 'get', from])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--frobnicate/)
    expect(r.stdout).toBe('')
  })

  it('help and a bare payops keep working', async () => {
    for (const args of [[], ['--help'], ['-h'], ['help'], ['help', 'moves']]) {
      const r = await cli(args)
      expect(r.code, `payops ${args.join(' ')}: ${r.stderr}`).toBe(0)
      expect(r.stdout).toMatch(/USAGE/)
    }
  })
})

describe('global flags between the topic and the command', () => {
  it('run the command, as gh and the Stripe CLI do', async () => {
    const before = await totals(to)
    const moved = await cli(['moves', '-p', 'sandbox', '--json', 'create', '--from', from, '--to', to, '--amount', '0.02'])
    expect(moved.code, moved.stderr).toBe(0)
    expect(moved.json()).toMatchObject({status: 'settled', amount_in_minor_units: 2})
    expect((await totals(to)).incoming).toBe(before.incoming + 2)
    const got = await cli(['subaccounts', '-p', 'other', '-o', 'json', 'get', otherSub])
    expect(got.code, got.stderr).toBe(0)
    expect(got.json().id).toBe(otherSub)
    const csv = await cli(['treasury', '-o', 'csv', 'accounts', 'list'])
    expect(csv.code, csv.stderr).toBe(0)
    expect(csv.stdout).toMatch(/^id,/)
  })

  it('a topic followed by flags and no command is a usage error, not its help with exit 0', async () => {
    for (const args of [['moves', '-p', 'sandbox'], ['moves', '--from', from, 'create', '--to', to, '--amount', '1'], ['subaccounts', '--json']]) {
      const r = await expectNothingSent(emu, () => cli(args), dir.path)
      expect(r.code, `payops ${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/Give a command after|Unknown flag --from after "moves"/)
    }
  })

  it('a mistyped command after them is named with its suggestion', async () => {
    const r = await expectNothingSent(emu, () => cli(['moves', '-p', 'sandbox', 'craete', '--from', from]), dir.path)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/Unknown command "moves craete"\. Did you mean "moves create"\?/)
  })

  it('help after them is still help', async () => {
    const r = await cli(['moves', '-p', 'sandbox', '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/moves create/)
  })
})
