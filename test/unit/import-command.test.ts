/** `moves import` in-process: a temp CSV, a fake API, fake IO and stop signal; no process spawned. */
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ApiError} from '../../src/errors.js'
import {runImportCommand, type ImportOptions} from '../../src/import/command.js'
import type {MoveCreateInput} from '../../src/api/moves.js'
import {testContext, type ApiDouble} from './context.js'
import {response} from './doubles.js'
import {databasePathFor} from '../../src/import/index.js'
import {ImportStore} from '../../src/import/store.js'
import {tempDir} from '../support/env.js'

/** What the import's database records for each key, in line order. */
function journalOf(file: string): Array<{line: number; state: string; kind: string | null}> {
  const s = ImportStore.open(databasePathFor(file))
  try {
    return s.db.prepare('SELECT line, state, kind FROM journal ORDER BY line').all()
  } finally {
    s.close()
  }
}

const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'
const OTHER = '99999999-9999-4999-8999-999999999999'

function csv(rows: string[]): string {
  const dir = tempDir('payops-import-cmd-').path
  const file = join(dir, 'moves.csv')
  writeFileSync(file, ['from,to,amount', ...rows].join('\n'))
  return file
}

function fakeApi(opts: {onCreate?: (n: number) => void} = {}): {sent: Array<{key: string; amount: number}>; api: ApiDouble} {
  const sent: Array<{key: string; amount: number}> = []
  return {
    sent,
    api: {
      subaccounts: {
        get: async (id: string) => {
          if (id === OTHER) throw new ApiError({status: 404, errorCode: 'NOT_FOUND', message: `subaccount ${id} not found`})
          return response(200, {id, name: id.slice(0, 4), currency_code: 'USD', total_incoming_in_minor_units: 0, total_outgoing_in_minor_units: 0})
        },
        currencies: async (ids: string[]) => new Map(ids.map((id): [string, string | null] => [id, 'USD'])),
      },
      moves: {
        create: async (input: MoveCreateInput, key: string) => {
          sent.push({key, amount: input.amount_in_minor_units})
          opts.onCreate?.(sent.length)
          return response(201, {id: `mv_${sent.length}`, ...input, status: 'settled'})
        },
      },
    },
  }
}

/**
 * A command context with a config dir of its own: the control store there records each batch by
 * its rows, and these tests import the same rows from many files (each its own payroll here).
 */
const importContext = (o: Parameters<typeof testContext>[0] = {}) => testContext({configDir: tempDir('payops-import-cmd-config-').path, ...o})

const opts = (file: string, over: Partial<ImportOptions> = {}): ImportOptions => ({file, dryRun: false, concurrency: 1, currency: 'USD', newBatch: false, guard: {yes: true}, ...over})

describe('runImportCommand', () => {
  it('sends every row once with its key, journals it, and a re-run sends nothing', async () => {
    const file = csv([`${A},${B},1.00`, `${A},${B},2.50`])
    const f = fakeApi()
    const t = importContext({api: f.api})
    await runImportCommand(opts(file), t.ctx)
    expect(f.sent.map((s) => s.amount)).toEqual([100, 250])
    expect(JSON.parse(t.stdout())).toMatchObject({rows: 2, created: 2, already_done: 0, failed: 0, not_sent: 0, total_this_run: {USD: 350}})
    expect(journalOf(file)).toEqual([
      {line: 2, state: 'done', kind: 'created'},
      {line: 3, state: 'done', kind: 'created'},
    ])
    expect(t.audit.filter((a) => a.kind === 'outcome').map((a) => a.info)).toEqual([
      expect.objectContaining({outcome: 'created', amount_in_minor_units: 100, currency_code: 'USD', from: A, to: B}),
      expect.objectContaining({outcome: 'created', amount_in_minor_units: 250}),
    ])
    const again = importContext({api: f.api})
    await runImportCommand(opts(file), again.ctx)
    expect(f.sent).toHaveLength(2)
    expect(JSON.parse(again.stdout())).toMatchObject({already_done: 2, created: 0})
  })

  it('the dry run checks sources for this key and names the line (exit 2), sending nothing', async () => {
    const file = csv([`${A},${B},1.00`, `${OTHER},${B},1.00`])
    const f = fakeApi()
    const t = importContext({api: f.api})
    const err = await runImportCommand(opts(file, {dryRun: true}), t.ctx).catch((e) => e)
    expect(err.exitCode).toBe(2)
    expect(t.stderr()).toMatch(/line 3: source subaccount 9999.* was not found for this API key/)
    expect(f.sent).toEqual([])
  })

  it('on LIVE without a terminal and without --yes nothing is sent (exit 3)', async () => {
    const file = csv([`${A},${B},1.00`])
    const f = fakeApi()
    const t = importContext({api: f.api, live: true})
    await expect(runImportCommand(opts(file, {guard: {}}), t.ctx)).rejects.toMatchObject({exitCode: 3})
    expect(f.sent).toEqual([])
  })

  it('Ctrl-C stops after the move in flight; the summary shows what was sent (exit 6)', async () => {
    const file = csv([`${A},${B},1.00`, `${A},${B},2.00`, `${A},${B},3.00`])
    let stop: () => void = () => undefined
    const f = fakeApi({onCreate: (n) => n === 1 && stop()})
    const t = importContext({api: f.api})
    stop = t.stop
    const err = await runImportCommand(opts(file), t.ctx).catch((e) => e)
    expect(err.exitCode).toBe(6)
    expect(f.sent).toHaveLength(1)
    expect(JSON.parse(t.stdout())).toMatchObject({created: 1, not_sent: 2, interrupted: true, total_this_run: {USD: 100}})
    expect(t.stderr()).toMatch(/Stopping after the moves in flight/)
    expect(t.exits).toEqual([])
  })
})

describe('runImportCommand on large files (streaming)', () => {
  it('a bad row near the end of a large file is reported before anything is sent (exit 2)', async () => {
    const rows = Array.from({length: 3000}, (_, i) => `${A},${B},${(i % 50) + 1}.00`)
    rows[2996] = `${A},${B},1.234`
    const file = csv(rows)
    const f = fakeApi()
    const t = importContext({api: f.api})
    const err = await runImportCommand(opts(file), t.ctx).catch((e) => e)
    expect(err.exitCode).toBe(2)
    expect(t.stderr()).toMatch(/line 2998: /)
    expect(err.message).toMatch(/1 problem in .*nothing was sent/)
    expect(f.sent).toEqual([])
    expect(existsSync(`${file}.payops-journal.jsonl`)).toBe(false)
  })

  it('the confirmation totals every currency of the file; the rows are sent in file order', async () => {
    const rows = Array.from({length: 2000}, (_, i) => `${A},${B},${i % 2 ? '1.00' : '2.50'}`)
    const file = csv(rows)
    const f = fakeApi()
    const t = importContext({api: f.api})
    await runImportCommand(opts(file, {concurrency: 1}), t.ctx)
    expect(t.stderr()).toMatch(/Import 2000 moves from .*: 3,500\.00 USD|Import 2000 moves from .*: 3500\.00 USD/)
    expect(f.sent).toHaveLength(2000)
    expect(f.sent.slice(0, 3).map((s) => s.amount)).toEqual([250, 100, 250])
    expect(JSON.parse(t.stdout())).toMatchObject({rows: 2000, created: 2000, total_this_run: {USD: 350000}})
  })

  it('a file changed during the import: the rows checked and confirmed are sent; a re-run refuses the changed row', async () => {
    const rows = Array.from({length: 5000}, () => `${A},${B},1.00`)
    const file = csv(rows)
    const changed = [...rows]
    changed[4000] = `${A},${B},9.00`
    const f = fakeApi({onCreate: (n) => n === 1 && writeFileSync(file, ['from,to,amount', ...changed].join('\n'))})
    const t = importContext({api: f.api})
    await runImportCommand(opts(file), t.ctx)
    expect(f.sent).toHaveLength(5000)
    expect(f.sent.every((s) => s.amount === 100)).toBe(true)
    const again = importContext({api: f.api})
    const err = await runImportCommand(opts(file), again.ctx).catch((e) => e)
    expect(err?.exitCode).toBe(2)
    expect(err?.message).toMatch(/1 row already sent has changed \(line 4002 of/)
    expect(again.stderr()).toContain('line 4002: this line held a row that was sent, and the file no longer holds it')
    expect(f.sent).toHaveLength(5000)
  })

  it('on a terminal the progress bar shows rows/s and the ETA', async () => {
    const file = csv([`${A},${B},1.00`, `${A},${B},2.00`])
    const f = fakeApi()
    const t = importContext({api: f.api, interactive: true})
    Object.assign(t.ctx.io.stderr, {isTTY: true, columns: 120})
    await runImportCommand(opts(file), t.ctx)
    expect(t.stderr()).toMatch(/moves .*2\/2 \(100%\) \d+ rows\/s eta /)
  })
})

describe('runImportCommand against a server that keeps to the interface\'s state table', () => {
  /** Creates auto-approved moves whose approval fails (207, left `created`); a replay of a `created` move with auto_approve continues it to settled. */
  function stateTable() {
    const moves = new Map<string, {id: string; status: string}>()
    const api: ApiDouble = {
      ...fakeApi().api,
      moves: {
        create: async (input: MoveCreateInput, key: string) => {
          const had = moves.get(key)
          if (had && had.status === 'created' && input.auto_approve !== false) had.status = 'settled'
          const m = had ?? {id: `mv_${moves.size + 1}`, status: 'created'}
          moves.set(key, m)
          const data = {...input, id: m.id, status: m.status}
          const warning = had ? undefined : 'approval failed'
          return response(had ? 200 : 207, data, {body: {data: {...data, status: had ? m.status.toUpperCase() : m.status}, ...(warning ? {warning} : {})}, warning})
        },
      },
    }
    return {api, moves}
  }

  it('a row created but not approved (207) is named and exit 6; the re-run continues it, settled now ("advanced")', async () => {
    const file = csv([`${A},${B},1.25`])
    const server = stateTable()
    const t = importContext({api: server.api})
    await expect(runImportCommand(opts(file), t.ctx)).rejects.toMatchObject({exitCode: 6, message: expect.stringMatching(/1 of 1 rows did not settle \(1\.25 USD, named above\); nothing moved by this run/)})
    expect(JSON.parse(t.stdout())).toMatchObject({created: 0, partial: 1, total_this_run: {}, total_not_settled: {USD: 125}, not_settled: [{line: 2, move_id: 'mv_1', status: 'created'}]})
    expect(t.stderr()).toMatch(/1 row created, not approved \(1\.25 USD\): line 2 \(move mv_1\)\. They moved nothing\. A re-run continues them/)
    expect(journalOf(file)).toEqual([{line: 2, state: 'open', kind: 'created'}])

    const again = importContext({api: server.api})
    await runImportCommand(opts(file), again.ctx)
    expect(again.stderr()).toMatch(/to send: 1 row not settled to look up again \(with the key it was sent with\)\./)
    expect(JSON.parse(again.stdout())).toMatchObject({advanced: 1, partial: 0, total_this_run: {USD: 125}, total_overall: {USD: 125}})
    expect([...server.moves.values()]).toEqual([{id: 'mv_1', status: 'settled'}])
    expect(journalOf(file)).toEqual([{line: 2, state: 'done', kind: 'advanced'}])
  })
})
