/**
 * A payroll is paid once: `moves import` knows a batch by the digest of its rows, in the control
 * store. On one machine (SQLite in the config dir) the same rows renamed and saved again are
 * refused; with a team store (a real PostgreSQL, two config dirs standing for two machines) so is
 * another member's copy, an interrupted batch resumes on the other machine with exactly one move
 * per row (the emulator's ledger says so), and a store that cannot be reached refuses before
 * anything is sent.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {activityAmounts, expectNothingSent, importDone, runAs, startCli, startEmulator, tempDir, type Emulator} from '../support/index.js'
import {freshDatabase, type TestDatabase} from '../support/postgres.js'

let emu: Emulator
const dir = tempDir('payops-import-batches-')

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

const sub = async (name: string) => (await runAs(emu, 'test', ['subaccounts', 'create', '--name', name])).json().id as string

function write(folder: string, name: string, text: string): string {
  const file = join(folder, name)
  writeFileSync(file, text)
  return file
}

/** A machine: a config dir of its own and a folder for its files. */
function machine(env: Record<string, string | undefined> = {}) {
  const cfg = tempDir('payops-test-machine-')
  return {
    dir: cfg.path,
    cleanup: cfg.cleanup,
    run: (args: string[], more: Record<string, string | undefined> = {}) => runAs(emu, 'test', args, {configDir: cfg.path, env: {...env, ...more}}),
  }
}

/** The same rows saved again: CRLF line endings, every cell quoted, a decimal amount written in minor units. */
/** Ana's import of `file` (one row at a time, the emulator slowed), once three rows are done. */
async function slowImportUnderWay(file: string, configDir: string, teamUrl: string) {
  const running = startCli(['moves', 'import', file, '--yes', '--concurrency', '1', '-o', 'json'], {configDir, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test, PAYOPS_TEAM_DATABASE_URL: teamUrl}})
  let finished = false
  void running.done.then(() => (finished = true), () => (finished = true))
  while (importDone(file) < 3) {
    if (finished) throw new Error(`the import ended before three rows were done: ${running.stderr()}`)
    await new Promise((r) => setTimeout(r, 10))
  }
  return running
}

function resaved(a: string, b: string, minor: number[]): string {
  return ['"from","to","amount_in_minor_units"', ...minor.map((v) => `"${a}","${b}","${v}"`)].join('\r\n') + '\r\n'
}

describe('one machine, no team store', () => {
  it('the same payroll renamed, in another folder and saved again is refused (exit 5, nothing sent); --new-batch pays it again', async () => {
    const [a, b] = [await sub('Payroll source'), await sub('Payroll destination')]
    const m = machine()
    try {
      const first = write(dir.path, 'payroll.csv', ['from,to,amount', `${a},${b},10.00`, `${a},${b},20.00`, `${a},${b},30.00`].join('\n') + '\n')
      const r = await m.run(['moves', 'import', first, '--yes'])
      expect(r.code, r.stderr).toBe(0)
      const other = tempDir('payops-test-other-folder-')
      try {
        const copy = write(other.path, 'payroll-final.csv', resaved(a, b, [1000, 2000, 3000]))
        const refused = await expectNothingSent(emu, () => m.run(['moves', 'import', copy, '--yes']), m.dir)
        expect(refused.code, refused.stderr).toBe(5)
        expect(refused.stderr).toMatch(/These rows were imported before: batch [0-9a-f]{12} /)
        expect(refused.stderr).toMatch(/started \d{4}-\d\d-\d\dT[0-9:.]+Z by .+ from .*payroll\.csv; 3 of 3 rows sent, 3 settled \(finished /)
        expect(refused.stderr).toMatch(/Nothing was sent\. If this really is a new payroll, pass --new-batch/)
        // A dry run is refused alike.
        expect((await expectNothingSent(emu, () => m.run(['moves', 'import', copy, '--dry-run']), m.dir)).code).toBe(5)
        expect(await activityAmounts(emu, b, 'credit')).toHaveLength(3)

        const again = await m.run(['moves', 'import', copy, '--yes', '--new-batch'])
        expect(again.code, again.stderr).toBe(0)
        expect(again.json()).toMatchObject({created: 3, total_this_run: {USD: 6000}})
        expect((await activityAmounts(emu, b, 'credit')).sort((x, y) => x - y)).toEqual([1000, 1000, 2000, 2000, 3000, 3000])
        // The original file re-run is still its own batch's resume: nothing to send.
        const rerun = await m.run(['moves', 'import', first, '--yes'])
        expect(rerun.code, rerun.stderr).toBe(0)
        expect(rerun.json()).toMatchObject({created: 0, already_done: 3})
      } finally {
        other.cleanup()
      }
    } finally {
      m.cleanup()
    }
  })

  it('other rows are another payroll: no refusal', async () => {
    const [a, b] = [await sub('Other source'), await sub('Other destination')]
    const m = machine()
    try {
      expect((await m.run(['moves', 'import', write(dir.path, 'june.csv', `from,to,amount\n${a},${b},1.00\n`), '--yes'])).code).toBe(0)
      const july = await m.run(['moves', 'import', write(dir.path, 'july.csv', `from,to,amount\n${a},${b},1.00\n${a},${b},1.00\n`), '--yes'])
      expect(july.code, july.stderr).toBe(0)
      expect(await activityAmounts(emu, b, 'credit')).toHaveLength(3)
    } finally {
      m.cleanup()
    }
  })
})

describe('a team store', () => {
  let db: TestDatabase
  let team: Record<string, string>
  beforeEach(async () => {
    db = await freshDatabase()
    const init = await runAs(emu, 'test', ['team', 'init', '--database-url', db.url()], {configDir: dir.path})
    expect(init.code, init.stderr).toBe(0)
    team = {ana: (await db.login('ana', ['payops_member'])).url, bob: (await db.login('bob', ['payops_member'])).url}
  })
  afterEach(async () => {
    await db.drop()
  })

  it("another member's copy of the payroll is refused on their machine (exit 5, naming who and how far); --new-batch pays again", async () => {
    const [a, b] = [await sub('Team source'), await sub('Team destination')]
    const [ana, bob] = [machine({PAYOPS_TEAM_DATABASE_URL: team.ana}), machine({PAYOPS_TEAM_DATABASE_URL: team.bob})]
    const bobs = tempDir('payops-test-bob-files-')
    try {
      const r = await ana.run(['moves', 'import', write(dir.path, 'team-payroll.csv', `from,to,amount\n${a},${b},5.00\n${a},${b},7.00\n`), '--yes'])
      expect(r.code, r.stderr).toBe(0)
      const copy = write(bobs.path, 'payroll-final.csv', resaved(a, b, [500, 700]))
      const refused = await expectNothingSent(emu, () => bob.run(['moves', 'import', copy, '--yes']), bob.dir)
      expect(refused.code, refused.stderr).toBe(5)
      expect(refused.stderr).toMatch(new RegExp(`started \\S+ by ana_[0-9a-f]+ from .*team-payroll\\.csv; 2 of 2 rows sent, 2 settled \\(finished`))
      expect(refused.stderr).toMatch(/--new-batch/)
      expect(await activityAmounts(emu, b, 'credit')).toHaveLength(2)

      const again = await bob.run(['moves', 'import', copy, '--yes', '--new-batch'])
      expect(again.code, again.stderr).toBe(0)
      expect((await activityAmounts(emu, b, 'credit')).sort((x, y) => x - y)).toEqual([500, 500, 700, 700])
      // Both batches are the store's, each stamped with who started it.
      const rows = await db.query<{actor: string}>('SELECT actor FROM payops.import_batches ORDER BY seq')
      expect(rows.map((x) => x.actor.replace(/_[0-9a-f]+$/, ''))).toEqual(['ana', 'bob'])
      // A member cannot remove a batch or its journal to be let through: only the store's functions append.
      for (const sql of ['DELETE FROM payops.import_batches', 'DELETE FROM payops.import_rows', `UPDATE payops.import_batches SET digest = 'x'`]) {
        await expect(db.queryAs(team.bob, sql)).rejects.toThrow(/permission denied/)
      }
    } finally {
      for (const x of [ana, bob, bobs]) x.cleanup()
    }
  })

  it('an import interrupted on one machine resumes on another from the store: exactly one move per row', async () => {
    const [a, b] = [await sub('Resume source'), await sub('Resume destination')]
    const [ana, bob] = [machine({PAYOPS_TEAM_DATABASE_URL: team.ana}), machine({PAYOPS_TEAM_DATABASE_URL: team.bob})]
    const bobs = tempDir('payops-test-bob-files-')
    const amounts = Array.from({length: 20}, (_, i) => 100 + i)
    const file = write(dir.path, 'resume.csv', ['from,to,amount_in_minor_units', ...amounts.map((v) => `${a},${b},${v}`)].join('\n') + '\n')
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 100, methods: ['POST']})
    try {
      const running = await slowImportUnderWay(file, ana.dir, team.ana)
      running.interrupt()
      expect((await running.done).code).toBe(6)
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
    }
    try {
      const before = (await activityAmounts(emu, a, 'debit')).length
      expect(before).toBeGreaterThanOrEqual(3)
      expect(before).toBeLessThan(20)
      const copy = write(bobs.path, 'resume-copy.csv', resaved(a, b, amounts))
      const r = await bob.run(['moves', 'import', copy, '--yes'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toMatch(/Resuming batch [0-9a-f]{12} of these rows, started from .*resume\.csv/)
      const s = r.json()
      // Rows done on the first machine are not sent again, nor counted as moved by this run.
      expect(s.already_done).toBe(before)
      expect(s.created + s.replayed + s.already_done).toBe(20)
      expect(s.created).toBe(20 - before)
      expect((await activityAmounts(emu, a, 'debit')).sort((x, y) => x - y)).toEqual(amounts)
      // Finished: a third run, on either machine, is refused (bob's fresh folder) or has nothing to send (ana's file).
      const third = machine({PAYOPS_TEAM_DATABASE_URL: team.ana})
      const thirds = tempDir('payops-test-third-files-')
      try {
        const refused = await expectNothingSent(emu, () => third.run(['moves', 'import', write(thirds.path, 'again.csv', resaved(a, b, amounts)), '--yes']), third.dir)
        expect(refused.code, refused.stderr).toBe(5)
        expect(refused.stderr).toMatch(/20 of 20 rows sent, 20 settled \(finished/)
      } finally {
        third.cleanup()
        thirds.cleanup()
      }
      const anaAgain = await ana.run(['moves', 'import', file, '--yes'])
      expect(anaAgain.code, anaAgain.stderr).toBe(0)
      expect(anaAgain.json().created).toBe(0)
      expect((await activityAmounts(emu, a, 'debit')).sort((x, y) => x - y)).toEqual(amounts)
    } finally {
      for (const x of [ana, bob, bobs]) x.cleanup()
    }
  })

  it('the store lost mid-import: the import stops (exit 7), and the other machine finishes it with one move per row', async () => {
    const [a, b] = [await sub('Lost source'), await sub('Lost destination')]
    const [ana, bob] = [machine({PAYOPS_TEAM_DATABASE_URL: team.ana}), machine({PAYOPS_TEAM_DATABASE_URL: team.bob})]
    const bobs = tempDir('payops-test-bob-files-')
    const amounts = Array.from({length: 20}, (_, i) => 300 + i)
    const file = write(dir.path, 'lost.csv', ['from,to,amount_in_minor_units', ...amounts.map((v) => `${a},${b},${v}`)].join('\n') + '\n')
    await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 100, methods: ['POST']})
    try {
      const running = await slowImportUnderWay(file, ana.dir, team.ana)
      // The store goes away under the running import: its connection is ended by the server.
      await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND usename = $2`, [db.name, new URL(team.ana).username])
      const r = await running.done
      expect(r.code, r.stderr).toBe(7)
      expect(r.stderr).toMatch(new RegExp(`team store ${db.host.replace(/\./g, '\\.')}:${db.port}/${db.name} cannot be reached`))
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
    }
    try {
      const sent = (await activityAmounts(emu, a, 'debit')).length
      expect(sent).toBeLessThan(20)
      const r = await bob.run(['moves', 'import', write(bobs.path, 'lost-copy.csv', resaved(a, b, amounts)), '--yes'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.json().created + r.json().replayed + r.json().already_done).toBe(20)
      expect((await activityAmounts(emu, a, 'debit')).sort((x, y) => x - y)).toEqual(amounts)
    } finally {
      for (const x of [ana, bob, bobs]) x.cleanup()
    }
  })

  it('a team store that cannot be reached: exit 7 before anything is sent, naming it without the password', async () => {
    const [a, b] = [await sub('Down source'), await sub('Down destination')]
    const m = machine({PAYOPS_TEAM_DATABASE_URL: `postgres://ana:Sup3rSecretPw@127.0.0.1:1/payops`})
    try {
      const file = write(dir.path, 'down.csv', `from,to,amount\n${a},${b},1.00\n`)
      const r = await expectNothingSent(emu, () => m.run(['moves', 'import', file, '--yes']), m.dir)
      expect(r.code, r.stderr).toBe(7)
      expect(r.stderr).toMatch(/team store 127\.0\.0\.1:1\/payops cannot be reached/)
      expect(r.stderr).not.toContain('Sup3rSecretPw')
      expect(await activityAmounts(emu, b, 'credit')).toHaveLength(0)
    } finally {
      m.cleanup()
    }
  })
})
