/**
 * The send of import rows (pipelineSender) with a fake API and audit sink, and the audit trail's
 * group writes as a large import uses them: the outcome record of a row is written while the next
 * rows go out and `drain` waits for it; the whole trail is not read to classify a row; the head is
 * overwritten in place once it has this version's size.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {ApiResponse, AuditInfo, AuditOutcome} from '../../src/api/client.js'
import type {MoveCreateInput} from '../../src/api/moves.js'
import type {Move} from '../../src/api/schemas/moves.js'
import {AuditLog, AuditTrailError, readAudit, readAuditHead, verifyAudit, type AuditFields} from '../../src/audit/index.js'
import {linesOf} from '../../src/audit/legacy.js'
import type {JournalRecord} from '../../src/import/store.js'
import {runImport} from '../../src/import/run.js'
import {pipelineSender, type KeyedRow, type RowOutcome, type RowSender} from '../../src/import/send.js'
import type {MovementPorts} from '../../src/movements/types.js'
import {tempDir} from '../support/env.js'
import {apiDouble} from './context.js'
import {response} from './doubles.js'

const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'

const row = (line: number, key: string, amount = 100): KeyedRow => ({
  index: line - 2,
  line,
  key,
  fp: `fp-${line}`,
  n: 1,
  from_subaccount_id: A,
  to_subaccount_id: B,
  amount_in_minor_units: amount,
  currency: 'USD',
  currencyGiven: false,
})

/** A journal that keeps what it is told, by key. */
function memoryJournal() {
  const records = new Map<string, JournalRecord[]>()
  return {
    records,
    record: (r: Pick<KeyedRow, 'key'>, rec: JournalRecord) => void records.set(r.key, [...(records.get(r.key) ?? []), rec]),
    keysIn: (state: JournalRecord['state']) => [...records].filter(([, recs]) => recs.some((x) => x.state === state)).map(([k]) => k),
  }
}

const source = (rows: KeyedRow[]) => ({rows, total: rows.length, alreadyDone: 0, doneTotals: {}})

function ports(opts: {outcomeDelay: () => Promise<void>; answer?: (key: string) => ApiResponse<Move>}) {
  const written: Array<{kind: string; info: AuditInfo | AuditOutcome}> = []
  let historyReads = 0
  const p: MovementPorts = {
    api: apiDouble({
      moves: {
        create: async (_input: MoveCreateInput, key: string) =>
          (opts.answer ?? (() => response(201, {id: `mv_${key}`, from_subaccount_id: A, to_subaccount_id: B, amount_in_minor_units: 100, status: 'settled', created_at: new Date().toISOString()})))(key),
      },
    }),
    audit: {
      intent: async (info) => void written.push({kind: 'intent', info}),
      outcome: async (info) => {
        await opts.outcomeDelay()
        written.push({kind: 'outcome', info})
      },
    },
    history: {
      byKey: () => {
        historyReads++
        return undefined
      },
      byResource: () => undefined,
      claimOf: () => undefined,
      movedSince: () => new Map(),
    },
    prompter: {interactive: false, confirm: async () => false, input: async () => '', password: async () => '', note: () => undefined},
    profile: {name: 'p', live: false, limitSets: [], keyLabel: 'test_…abcd'},
    yes: true,
    overrideLimits: false,
    newKey: () => 'generated',
  }
  return {p, written, historyReads: () => historyReads}
}

describe('pipelineSender', () => {
  it('resolves a row before its outcome record is written; drain waits for every outcome', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const f = ports({outcomeDelay: () => gate})
    const send = pipelineSender(f.p)
    const outcomes = await Promise.all([send(row(2, 'k-2')), send(row(3, 'k-3'))])
    expect(outcomes.map((o) => o.kind)).toEqual(['created', 'created'])
    // Both intents are on record before their rows were sent; no outcome yet.
    expect(f.written.map((w) => w.kind)).toEqual(['intent', 'intent'])
    let drained = false
    const draining = send.drain!().then(() => (drained = true))
    await new Promise((r) => setTimeout(r, 10))
    expect(drained).toBe(false)
    release()
    await draining
    expect(f.written.filter((w) => w.kind === 'outcome').map((w) => w.info.idempotency_key)).toEqual(['k-2', 'k-3'])
  })

  it('classifies a replay from the answer, without reading the audit trail by key', async () => {
    const earlier = new Date(Date.now() - 3_600_000).toISOString()
    const f = ports({
      outcomeDelay: async () => undefined,
      answer: (key) => response(200, {id: `mv_${key}`, from_subaccount_id: A, to_subaccount_id: B, amount_in_minor_units: 100, status: 'settled', created_at: earlier, status_recorded_at: earlier}),
    })
    const send = pipelineSender(f.p)
    expect((await send(row(2, 'k-2'))).kind).toBe('replayed')
    await send.drain!()
    expect(f.historyReads()).toBe(0)
  })
})

describe('audit trail groups', () => {
  const fields = (i: number): AuditFields => ({kind: 'intent', op: `op-${i}`, profile: null, mode: 'test', method: 'POST', path: '/api/subaccounts/move', idempotency_key: `k-${i}`})

  it('the records queued while a group is written form the next group: one transaction each, and the head moves with them', async () => {
    const dir = tempDir('payops-audit-groups-').path
    const log = new AuditLog(dir)
    await log.append(fields(1))
    expect(readAuditHead(dir)).toMatchObject({state: 'ok', head: {seq: 1}})
    await Promise.all([2, 3, 4].map((i) => log.append(fields(i))))
    await log.close()
    expect(readAuditHead(dir)).toMatchObject({state: 'ok', head: {seq: 4}})
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 4})
    expect(new Set(readAudit(dir).slice(1).map((r) => r.time)).size).toBe(1)
  })

  it('a writer that finds records appended by another since its last group continues after them', async () => {
    const dir = tempDir('payops-audit-groups-').path
    const a = new AuditLog(dir)
    const b = new AuditLog(dir)
    await a.append(fields(1))
    await b.append(fields(2))
    await a.append(fields(3))
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 3})
    const seqs = readAudit(dir).map((r) => r.seq)
    expect(seqs).toEqual([1, 2, 3])
  })
})

describe('runImport with rows prepared ahead', () => {
  it('sends each row once; a row prepared when the run is stopped is given up, recorded, and not journaled as sent', async () => {
    const dir = tempDir('payops-import-ahead-').path
    const journal = memoryJournal()
    const abort = new AbortController()
    const events: string[] = []
    const sendOf = (row: KeyedRow) => async (): Promise<RowOutcome> => {
      events.push(`send ${row.line}`)
      // Ctrl-C while the third row is in flight (the next one is prepared by then): it is not sent.
      if (row.line === 4) setTimeout(() => abort.abort(), 1)
      await new Promise((r) => setTimeout(r, 5))
      return {kind: 'created', httpStatus: 201, move: {id: `mv_${row.line}`, from_subaccount_id: row.from_subaccount_id, to_subaccount_id: row.to_subaccount_id, amount_in_minor_units: row.amount_in_minor_units, status: 'settled'}}
    }
    const send: RowSender = Object.assign(async (row: KeyedRow) => sendOf(row)(), {
      prepare: async (row: KeyedRow) => {
        events.push(`prepare ${row.line}`)
        return {send: sendOf(row), abandon: async (reason: string) => void events.push(`abandon ${row.line} ${reason}`)}
      },
    })
    const rows = Array.from({length: 10}, (_, i) => row(i + 2, `k-${i + 2}`))
    const result = await runImport(send, source(rows), journal, {concurrency: 1, signal: abort.signal})
    expect(result).toMatchObject({created: 3, not_sent: 7, interrupted: true})
    // One slot: two rows are prepared ahead of the one in flight; those left when it stops are given up.
    expect(events.slice(0, 3)).toEqual(['prepare 2', 'prepare 3', 'send 2'])
    expect(events.filter((e) => e.startsWith('send'))).toEqual(['send 2', 'send 3', 'send 4'])
    expect(events.filter((e) => e.startsWith('abandon'))).toEqual(['abandon 5 not_sent', 'abandon 6 not_sent'])
    expect(events.filter((e) => e.startsWith('prepare'))).toHaveLength(5)
    expect(journal.keysIn('sent').sort()).toEqual(['k-2', 'k-3', 'k-4'])
    expect(journal.keysIn('done').sort()).toEqual(['k-2', 'k-3', 'k-4'])
    expect([...journal.records.keys()].sort()).toEqual(['k-2', 'k-3', 'k-4'])
  })

  it('a send that stops the import (the trail cannot be written) gives up the rows prepared behind it', async () => {
    const dir = tempDir('payops-import-ahead-').path
    const journal = memoryJournal()
    const events: string[] = []
    const unprepared = async (): Promise<RowOutcome> => {
      throw new Error('not called: every row is prepared first')
    }
    const send: RowSender = Object.assign(unprepared, {
      prepare: async (row: KeyedRow) => {
        events.push(`prepare ${row.line}`)
        return {
          send: async (): Promise<RowOutcome> => {
            events.push(`send ${row.line}`)
            throw new AuditTrailError('the audit trail was cut')
          },
          abandon: async (reason: string) => void events.push(`abandon ${row.line} ${reason}`),
        }
      },
    })
    const rows = Array.from({length: 5}, (_, i) => row(i + 2, `k-${i + 2}`))
    await expect(runImport(send, source(rows), journal, {concurrency: 1})).rejects.toBeInstanceOf(AuditTrailError)
    expect(journal.keysIn('done')).toEqual([])
    expect(events.filter((e) => e.startsWith('send'))).toEqual(['send 2'])
    // Every row whose intent was recorded is either sent or given up.
    const prepared = events.filter((e) => e.startsWith('prepare')).map((e) => e.split(' ')[1])
    const closed = events.filter((e) => e.startsWith('send') || e.startsWith('abandon')).map((e) => e.split(' ')[1])
    expect(closed.sort()).toEqual(prepared.sort())
  })
})

describe('reading the audit trail by chunks', () => {
  it('gives the same lines as splitting the whole file, across chunk boundaries, blank lines and a last line without its end', () => {
    const dir = tempDir('payops-audit-lines-').path
    const file = join(dir, 'audit.jsonl')
    // Longer than one 8 MB chunk; lines of varied length and non-ASCII text, so boundaries fall mid-line and mid-character.
    const lines = Array.from({length: 60_000}, (_, i) => (i % 997 === 0 ? '' : `{"n":${i},"text":"${'é€x'.repeat(i % 70)}"}`))
    for (const end of ['\n', '']) {
      const text = lines.join('\n') + end
      writeFileSync(file, text)
      const expected = text.split('\n')
      if (expected[expected.length - 1] === '') expected.pop()
      expect([...linesOf(file)]).toEqual(expected)
    }
  })
})
