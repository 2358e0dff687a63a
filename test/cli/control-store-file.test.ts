/**
 * One control store on one machine: the audit trail (the intents a daily cap is decided from) and
 * the control store's other records (import batches and their journals) are in one SQLite file,
 * `controls.sqlite` in the config dir, and no other store is made there. The trail's writer and
 * the import journal's share that file's one write lock, in one process and across processes.
 */
import {readdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {AuditRecord} from '../../src/audit/index.js'
import {CONTROLS_FILE, CONTROLS_SCHEMA} from '../../src/control/sqlite-schema.js'
import {openDatabase} from '../../src/db/index.js'
import {expectOnlyRequests, run, startEmulator, tempDir, type Emulator, type RunOptions} from '../support/index.js'

let emu: Emulator
const config = tempDir('payops-control-file-')
const files = tempDir('payops-control-file-csv-')
let a: string
let b: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: config.path, ...opts})

function csv(name: string, amounts: string[]): string {
  const file = join(files.path, name)
  writeFileSync(file, ['from,to,amount', ...amounts.map((v) => `${a},${b},${v}`)].join('\n') + '\n')
  return file
}

/** What the config dir's one store holds, read in one statement on one connection. */
function store() {
  const db = openDatabase(join(config.path, CONTROLS_FILE), CONTROLS_SCHEMA)
  try {
    return db
      .prepare(`SELECT (SELECT purpose || ' ' || version FROM payops_schema) AS schema,
        (SELECT json_group_array(record) FROM (SELECT record FROM trail ORDER BY seq)) AS trail,
        (SELECT seq FROM trail_head) AS head,
        (SELECT json_group_array(file) FROM import_batches) AS batches,
        (SELECT count(*) FROM import_rows) AS journal,
        (SELECT count(*) FROM import_finished) AS finished`)
      .get<{schema: string; trail: string; head: number; batches: string; journal: number; finished: number}>()!
  } finally {
    db.close()
  }
}

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  a = (await cli(['subaccounts', 'create', '--name', 'One store A'])).json().id
  b = (await cli(['subaccounts', 'create', '--name', 'One store B'])).json().id
  expect((await cli(['profiles', 'set', 'sandbox', 'daily-max', '10.00', 'USD'])).code).toBe(0)
})
afterAll(async () => {
  await emu?.stop()
  config.cleanup()
  files.cleanup()
})

describe('the audit trail and the control records are one store: controls.sqlite', () => {
  it('an import batch and the intents its cap decisions allowed are in the same file; a move past the cap is refused from it', async () => {
    const file = csv('payroll.csv', ['1.00', '2.00', '3.00'])
    const r = await cli(['moves', 'import', file, '--yes'])
    expect(r.code, r.stderr).toBe(0)

    const s = store()
    expect(s.schema).toBe(`controls ${CONTROLS_SCHEMA.migrations.length}`)
    const trail = (JSON.parse(s.trail) as string[]).map((t) => JSON.parse(t) as AuditRecord)
    const moves = trail.filter((rec) => rec.kind === 'intent' && rec.path === '/api/subaccounts/move')
    expect(moves.map((rec) => rec.amount_in_minor_units).sort()).toEqual([100, 200, 300])
    expect(s.head).toBe(trail.at(-1)!.seq)
    expect(JSON.parse(s.batches)).toEqual([file])
    expect(s.journal).toBeGreaterThanOrEqual(3)
    expect(s.finished).toBe(1)
    // No other store in the config dir: the trail has no file of its own.
    expect(readdirSync(config.path).filter((f) => /\.sqlite$/.test(f))).toEqual([CONTROLS_FILE])

    // 6.00 moved today: the cap is decided from the trail in that file (only the plan's lookups are sent).
    const lookups = [a, b].map((id) => `GET /api/subaccounts/${id}`)
    const refused = await expectOnlyRequests(emu, lookups, () => cli(['moves', 'create', '--from', a, '--to', b, '--amount', '4.01', '--yes']), config.path)
    expect(refused.code, refused.stderr).toBe(3)
    expect(refused.stderr).toContain('6.00 USD moved today (UTC) under this key + 4.01 USD asked = 10.01 USD')
    expect((await cli(['audit', 'verify'])).code).toBe(0)
  })

  it('two imports at once in one process, and a move beside them, share the write lock: every record is kept, the chain intact', async () => {
    const before = store()
    const [one, two, move] = await Promise.all([
      cli(['moves', 'import', csv('one.csv', ['0.01', '0.02', '0.03', '0.04']), '--concurrency', '4', '--yes']),
      cli(['moves', 'import', csv('two.csv', ['0.05', '0.06', '0.07']), '--concurrency', '4', '--yes']),
      cli(['moves', 'create', '--from', a, '--to', b, '--amount', '0.08', '--yes']),
    ])
    for (const x of [one, two, move]) expect(x.code, x.stderr).toBe(0)
    const after = store()
    const added = (JSON.parse(after.trail) as string[]).slice((JSON.parse(before.trail) as string[]).length).map((t) => JSON.parse(t) as AuditRecord)
    // An intent and an outcome for each of the eight moves.
    expect(added.filter((rec) => rec.path === '/api/subaccounts/move').length).toBe(16)
    expect(JSON.parse(after.batches)).toHaveLength(3)
    expect(after.finished).toBe(3)
    const verify = await cli(['audit', 'verify', '-o', 'json'])
    expect(verify.code, verify.stderr).toBe(0)
    expect(verify.json().records).toBe(after.head)
  })
})
