/**
 * `moves import`: every figure about money is proven against the emulator's ledger (the activity
 * of the destination) and the audit trail's outcome records. Only money that SETTLED is "moved";
 * rows left approved by a failed settlement, rows created awaiting approval, replays of moves an
 * earlier run made, and rows whose answer was lost are each counted apart and named.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {readAudit} from '../../src/audit/index.js'
import {activityAmounts, importDone, importRecords, runAs, startCli, startEmulator, tempDir, type Emulator} from '../support/index.js'

let emu: Emulator
const dir = tempDir('payops-import-settled-')

const sub = async (name: string) => (await runAs(emu, 'test', ['subaccounts', 'create', '--name', name])).json().id as string
/** The ledger: what the destination was credited, in minor units. */
const credited = async (id: string) => (await activityAmounts(emu, id, 'credit')).reduce((s, v) => s + v, 0)

function csv(name: string, lines: string[]): string {
  const file = join(dir.path, name)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

/** Each test keeps its own audit trail, so that its outcome records can be summed. */
function importer() {
  const cfg = tempDir('payops-import-settled-cfg-')
  const imp = (args: string[]) => runAs(emu, 'test', ['moves', 'import', ...args, '--yes'], {configDir: cfg.path})
  let seen = 0
  /** The audit trail's outcome records since the last call: what they say settled now (created or advanced), and what was replayed. */
  const audited = () => {
    const all = readAudit(cfg.path)
    const fresh = all.slice(seen).filter((r) => r.kind === 'outcome')
    seen = all.length
    const sum = (pick: (r: (typeof fresh)[number]) => boolean) => fresh.filter(pick).reduce((s, r) => s + (r.amount_in_minor_units ?? 0), 0)
    return {
      settledNow: sum((r) => r.resource_status === 'settled' && (r.outcome === 'created' || r.outcome === 'advanced')),
      notSettled: sum((r) => r.resource_status === 'approved'),
      replayed: fresh.filter((r) => r.outcome === 'replayed').length,
    }
  }
  return {cfg, imp, audited}
}

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu.control('DELETE', '/_emulator/faults').catch(() => undefined)
  dir.cleanup()
})

describe('moves import counts only money that settled', () => {
  it('5 rows, 2 settlements fail: 12.00 moved, 3.00 approved and not settled named apart, exit 6; a re-run says what settles them', async () => {
    const [a, b] = [await sub('Partial source'), await sub('Partial destination')]
    const file = csv('partial.csv', ['from,to,amount', `${a},${b},1.00`, `${a},${b},2.00`, `${a},${b},4.00`, `${a},${b},4.00`, `${a},${b},4.00`])
    const {cfg, imp, audited} = importer()
    try {
      await emu.control('POST', '/_emulator/fail-next-settlement', {count: 2})
      const r = await imp([file, '--concurrency', '1'])
      expect(r.code, r.stderr).toBe(6)
      const out = r.json()
      expect(await credited(b)).toBe(1200)
      expect(out).toMatchObject({rows: 5, created: 3, partial: 2, awaiting_approval: 0, failed: 0, total_this_run: {USD: 1200}, total_overall: {USD: 1200}, total_not_settled: {USD: 300}})
      expect(out.not_settled.map((n: {line: number; status: string}) => [n.line, n.status])).toEqual([[2, 'approved'], [3, 'approved']])
      expect(r.stderr).toMatch(/2 rows approved, not settled \(3\.00 USD\): lines 2-3/)
      expect(r.stderr).toMatch(/payops moves approve/)
      expect(audited()).toMatchObject({settledNow: 1200, notSettled: 300})
      expect(importRecords(file)?.batch?.finished_at).toBeNull()

      // The re-run sends the two rows again with their keys (the one look-up of a move the
      // interface offers); their settlement fails again, so nothing more moves.
      await emu.control('POST', '/_emulator/fail-next-settlement', {count: 2})
      const again = await imp([file])
      await emu.control('POST', '/_emulator/fail-next-settlement', {count: 0})
      expect(again.code, again.stderr).toBe(6)
      expect(again.stderr).not.toMatch(/nothing to send/)
      expect(again.stderr).toMatch(/3 rows were imported before .*2 rows not settled to look up again/)
      expect(await credited(b)).toBe(1200)
      expect(again.json()).toMatchObject({created: 0, advanced: 0, partial: 2, already_done: 3, total_this_run: {}, total_overall: {USD: 1200}, total_not_settled: {USD: 300}})
      expect(again.stderr).toMatch(/2 rows approved, not settled \(3\.00 USD\)/)
      expect(audited().settledNow).toBe(0)
    } finally {
      cfg.cleanup()
    }
  })

  it('a re-run after a failed settlement: whatever the server does with an approved move, the figures are the ledger\'s', async () => {
    const [a, b] = [await sub('Oracle source'), await sub('Oracle destination')]
    const file = csv('oracle.csv', ['from,to,amount', `${a},${b},1.00`, `${a},${b},2.00`, `${a},${b},4.00`])
    const {cfg, imp, audited} = importer()
    try {
      await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
      expect((await imp([file, '--concurrency', '1'])).code).toBe(6)
      audited()
      const before = await credited(b)
      expect(before).toBe(600)
      const r = await imp([file])
      const out = r.json()
      const movedNow = (await credited(b)) - before
      // A server that continues an approved move settles it now (advanced); one that keeps to
      // the interface leaves it approved: either way the summary says what the ledger shows.
      expect(out.total_this_run).toEqual(movedNow ? {USD: movedNow} : {})
      expect(out.total_overall).toEqual({USD: before + movedNow})
      expect(out.advanced).toBe(movedNow ? 1 : 0)
      expect(out.partial).toBe(movedNow ? 0 : 1)
      expect(r.code, r.stderr).toBe(movedNow ? 0 : 6)
      expect(audited().settledNow).toBe(movedNow)
    } finally {
      cfg.cleanup()
    }
  })

  it('auto_approve=false rows are created awaiting approval: counted apart, not moved; a re-run sends nothing and names them', async () => {
    const [a, b] = [await sub('Awaiting source'), await sub('Awaiting destination')]
    const file = csv('awaiting.csv', ['from,to,amount,auto_approve', `${a},${b},1.00,true`, `${a},${b},2.00,false`, `${a},${b},3.00,`])
    const {cfg, imp, audited} = importer()
    try {
      const r = await imp([file])
      expect(r.code, r.stderr).toBe(0)
      expect(await credited(b)).toBe(400)
      expect(r.json()).toMatchObject({created: 2, awaiting_approval: 1, partial: 0, total_this_run: {USD: 400}, total_overall: {USD: 400}, total_awaiting_approval: {USD: 200}})
      expect(r.stderr).toMatch(/1 row created, awaiting approval \(2\.00 USD\): line 3 \(move [0-9a-f-]{36}\)/)
      expect(audited().settledNow).toBe(400)
      const again = await imp([file])
      expect(again.code, again.stderr).toBe(0)
      expect(again.json()).toMatchObject({created: 0, already_done: 3, awaiting_approval: 0, total_this_run: {}, total_overall: {USD: 400}, total_awaiting_approval: {}})
      expect(again.stderr).toMatch(/3 rows were imported before, 1 of them recorded as awaiting approval, \(journal .*\); nothing to send/)
      expect(await credited(b)).toBe(400)
    } finally {
      cfg.cleanup()
    }
  })
})

describe('moves import: a row awaiting approval whose move was canceled or approved elsewhere', () => {
  it('a cancel of its move whose answer was lost: the re-run says the row is in doubt and names the command that finds out (exit 6)', async () => {
    const [a, b] = [await sub('Doubt source'), await sub('Doubt destination')]
    const file = csv('doubt.csv', ['from,to,amount,auto_approve', `${a},${b},2.00,false`])
    const {cfg, imp} = importer()
    try {
      const first = await imp([file])
      expect(first.code, first.stderr).toBe(0)
      const moveId = /line 2 \(move ([0-9a-f-]{36})\)/.exec(first.stderr)![1]
      // The cancel takes effect, and its answer is lost (a 500 after the server committed).
      await emu.control('POST', '/_emulator/faults', {queue: [{kind: '500', phase: 'after'}], methods: ['DELETE']})
      const cancel = await runAs(emu, 'test', ['moves', 'cancel', moveId, '--yes'], {configDir: cfg.path})
      await emu.control('DELETE', '/_emulator/faults')
      expect(cancel.code, cancel.stderr).toBe(7)
      const again = await imp([file])
      expect(again.code, again.stderr).toBe(6)
      expect(again.stderr).toMatch(/1 row was imported before, 1 of them recorded as awaiting approval,/)
      expect(again.stderr).toContain(`1 row recorded as awaiting approval (line 2) had a cancel or an approval of its move sent whose answer was lost: it may be canceled or settled since; \`payops moves cancel ${moveId}\` finds out for line 2.`)
      // The command named finds out (the move is canceled: nothing to do), and the next re-run says so.
      const found = await runAs(emu, 'test', ['moves', 'cancel', moveId, '--yes'], {configDir: cfg.path})
      expect(found.code, found.stderr).toBe(0)
      const last = await imp([file])
      expect(last.code).toBe(6)
      expect(last.stderr).toMatch(/1 row recorded as awaiting approval \(line 2\) has its move canceled or failed since/)
      expect(await credited(b)).toBe(0)
    } finally {
      cfg.cleanup()
    }
  })
})

describe('moves import: "moved by this run" is the ledger\'s change', () => {
  it('every answer lost (after commit), then a re-run stopped by Ctrl-C: replays are not money moved now', async () => {
    const [a, b] = [await sub('Lost source'), await sub('Lost destination')]
    const amounts = Array.from({length: 24}, (_, i) => 1000 + i)
    const file = csv('lost.csv', ['from,to,amount_in_minor_units', ...amounts.map((v) => `${a},${b},${v}`)])
    const {cfg, imp, audited} = importer()
    try {
      await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['503'], phases: ['after'], methods: ['POST']})
      const lost = await imp([file, '--max-retries', '0'])
      await emu.control('DELETE', '/_emulator/faults')
      expect(lost.code, lost.stderr).toBe(6)
      const all = amounts.reduce((s, v) => s + v, 0)
      expect(await credited(b)).toBe(all)
      // The outcome is unknown: nothing is claimed as moved, and every row is named as possibly made.
      expect(lost.json()).toMatchObject({failed: 24, total_this_run: {}, total_unknown: {USD: all}})
      expect(lost.stderr).toMatch(/24 of 24 rows failed .*; the answer to all of them was lost, so their moves may have been made \(242\.76 USD\): the re-run finds out, never making a second move/)
      audited()

      await emu.control('POST', '/_emulator/faults', {rate: 1, kinds: ['latency'], latency_ms: 60, methods: ['POST']})
      const running = startCli(['moves', 'import', file, '--yes', '--concurrency', '1', '-o', 'json'], {configDir: cfg.path, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}})
      let finished = false
      void running.done.then(() => (finished = true), () => (finished = true))
      while (importDone(file) < 3) {
        if (finished) throw new Error(`the import ended before it could be interrupted: ${running.stderr()}`)
        await new Promise((r) => setTimeout(r, 10))
      }
      running.interrupt()
      const r = await running.done
      await emu.control('DELETE', '/_emulator/faults')
      expect(r.code, r.stderr).toBe(6)
      const out = r.json()
      expect(await credited(b)).toBe(all)
      expect(out.replayed).toBeGreaterThanOrEqual(3)
      expect(out).toMatchObject({created: 0, advanced: 0, interrupted: true, total_this_run: {}})
      expect(out.replayed + out.not_sent).toBe(24)
      const replayedSum = amounts.slice(0, out.replayed).reduce((s, v) => s + v, 0)
      expect(out.total_overall).toEqual({USD: replayedSum})
      expect(r.stderr).toMatch(new RegExp(`Interrupted: ${out.replayed} of 24 rows done, ${out.not_sent} not sent \\(nothing moved by this run\\)`))
      const audit = audited()
      expect(audit.settledNow).toBe(0)
      expect(audit.replayed).toBe(out.replayed)

      const rest = await imp([file])
      expect(rest.code, rest.stderr).toBe(0)
      expect(rest.json()).toMatchObject({created: 0, total_this_run: {}, total_overall: {USD: all}})
      expect(await credited(b)).toBe(all)
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
      cfg.cleanup()
    }
  })

  it('settlement failures, rows awaiting approval, answers lost after commit and Ctrl-C: the summary, JSON and audit trail are the ledger\'s', async () => {
    const [a, b] = [await sub('Mixed source'), await sub('Mixed destination')]
    const rows = Array.from({length: 30}, (_, i) => ({amount: 100 + i, auto: i % 5 !== 1}))
    const file = csv('mixed.csv', ['from,to,amount_in_minor_units,auto_approve', ...rows.map((r) => `${a},${b},${r.amount},${r.auto}`)])
    const {cfg, imp, audited} = importer()
    const sum = (list: Array<{amount_in_minor_units: number}>) => list.reduce((t, r) => t + r.amount_in_minor_units, 0)
    try {
      await emu.control('POST', '/_emulator/fail-next-settlement', {count: 3})
      await emu.control('POST', '/_emulator/faults', {queue: [{kind: '503', phase: 'after'}, {kind: 'reset', phase: 'after'}], rate: 1, kinds: ['latency'], latency_ms: 40, methods: ['POST']})
      const running = startCli(['moves', 'import', file, '--yes', '--concurrency', '2', '-o', 'json'], {configDir: cfg.path, env: {PAYOPS_BASE_URL: emu.baseUrl, PAYOPS_API_KEY: emu.keys.test}})
      let finished = false
      void running.done.then(() => (finished = true), () => (finished = true))
      while (importDone(file) < 10) {
        if (finished) throw new Error(`the import ended before it could be interrupted: ${running.stderr()}`)
        await new Promise((r) => setTimeout(r, 10))
      }
      running.interrupt()
      const r = await running.done
      await emu.control('DELETE', '/_emulator/faults')
      await emu.control('POST', '/_emulator/fail-next-settlement', {count: 0})
      expect(r.code, r.stderr).toBe(6)
      const out = r.json()
      const ledger = await credited(b)
      expect(out.interrupted).toBe(true)
      // Some settlements failed (how many the three failures cover depends on how the server replays the retried rows).
      expect(out.partial).toBeGreaterThanOrEqual(1)
      expect(out.not_settled).toHaveLength(out.partial)
      expect(out.awaiting_approval).toBeGreaterThanOrEqual(1)
      expect(out.created + out.partial + out.awaiting_approval + out.not_sent).toBe(30)
      expect(out.total_this_run).toEqual({USD: ledger})
      expect(out.total_overall).toEqual({USD: ledger})
      expect(out.total_not_settled).toEqual({USD: sum(out.not_settled)})
      expect(out.not_settled.every((n: {status: string}) => n.status === 'approved')).toBe(true)
      const awaitingLines = rows.map((row, i) => ({...row, line: i + 2})).filter((row) => !row.auto)
      expect(awaitingLines.filter((row) => importRecords(file)!.journal.some((j) => j.line === row.line && j.state === 'done')).length).toBe(out.awaiting_approval)
      expect(audited().settledNow).toBe(ledger)
      expect(r.stderr).toMatch(new RegExp(`Interrupted: ${out.created + out.awaiting_approval} of 30 rows done, ${out.not_sent} not sent \\(${(ledger / 100).toFixed(2)} USD moved by this run\\)`))

      // The re-run finishes: its figures are the ledger's change, whatever the server does with the approved moves.
      const rest = await imp([file])
      const moved = (await credited(b)) - ledger
      const done = rest.json()
      expect(done.total_this_run).toEqual(moved ? {USD: moved} : {})
      expect(done.total_overall).toEqual({USD: ledger + moved})
      expect(audited().settledNow).toBe(moved)
      expect(rest.code, rest.stderr).toBe(done.partial ? 6 : 0)
      expect(done.advanced + done.partial).toBe(out.partial)
      expect(done.created + done.awaiting_approval + done.advanced + done.partial).toBe(out.not_sent + out.partial)
    } finally {
      await emu.control('DELETE', '/_emulator/faults')
      cfg.cleanup()
    }
  })
})
