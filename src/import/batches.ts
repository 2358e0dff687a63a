/**
 * A payroll is paid once: an import batch is known to the control store by the digest of its rows
 * (src/import/digest.ts), so the same rows under another name, in another folder, or (with a team
 * store) on another member's machine are refused unless --new-batch says they are a new payroll.
 * With a team store the batch's journal is kept there too, row by row, so that a batch
 * interrupted on one machine resumes on another: each row with the key it was sent with, the rows
 * done there not sent again, a row whose answer was lost replayed by its key (never a second move).
 *
 * On one machine (no team store) the control store is `controls.sqlite` in the config dir; the
 * per-file journal stays what a resume reads, and the store's copy only says how far a batch got.
 */
import {openControlStore, teamBinding, type ControlStore} from '../control/index.js'
import {StoreConflictError} from '../control/errors.js'
import type {ImportBatch, ImportJournalEntry} from '../control/types.js'
import type {CommandContext} from '../context/index.js'
import {escapeControls} from '../output/safe.js'
import {digestPrefix} from './digest.js'
import type {BatchHooks, ImportPlan} from './index.js'
import type {RowSender} from './send.js'
import type {JournalRecord, PlannedRow} from './store.js'

/** What the store says of the planned rows: go on (recording the batch), or resume its batch (plan again with it). */
export type Settled = {adopt?: {batchId: string; file: string; journal: ImportJournalEntry[]}}

/** A failure of the store, carried past the run's per-row handling so that the run stops. */
class StoreWriteStopped extends Error {}

/** The ways forward, said when a batch of the same rows exists. */
function refusal(b: ImportBatch, team: boolean): StoreConflictError {
  const file = escapeControls(b.file)
  const how = `${b.sent} of ${b.rows} rows sent, ${b.settled} settled`
  const state = b.finished_at ? `finished ${b.finished_at}` : 'not finished'
  const resume = b.finished_at
    ? 'Nothing of it is left to send.'
    : team
      ? `To finish that batch instead, import these rows with --journal naming a new database: the run resumes it from the team store's journal, each row with its own key.`
      : `To finish that batch instead, re-run the import of ${file} (its journal is beside it).`
  return new StoreConflictError(
    `These rows were imported before: batch ${digestPrefix(b.digest)} (the digest of its rows), started ${b.started_at} by ${escapeControls(b.started_by)} from ${file}; ` +
      `${how} (${state}). Nothing was sent. If this really is a new payroll, pass --new-batch (its rows are sent again as new moves). ${resume}`,
  )
}

export class BatchLedger implements BatchHooks {
  private queue: Array<{batchId: string; entry: ImportJournalEntry}> = []
  private writing: Promise<void> = Promise.resolve()
  private timer?: NodeJS.Timeout
  private failure?: unknown
  /** The latest batch of these rows the store held when the plan was settled. */
  private seen: string | null = null
  /** The batch whose journal is being copied (set as it begins). */
  private batchId = ''

  private constructor(readonly ctl: ControlStore, readonly team: boolean) {}

  /** Opens the control store (a team store that cannot be reached: exit 7, before anything is sent). */
  static async open(ctx: CommandContext): Promise<BatchLedger> {
    return new BatchLedger(await openControlStore(ctx), Boolean(teamBinding(ctx)))
  }

  /**
   * Refuses (exit 5) rows that a batch already pays, unless the per-file journal is that batch's
   * (a resume) or --new-batch; with a team store, an unfinished batch
   * of them started elsewhere is resumed instead.
   */
  async settle(p: ImportPlan, newBatch: boolean, canPlanAgain = true): Promise<Settled> {
    const b = await this.ctl.importBatch(p.digest)
    this.seen = b?.batch_id ?? null
    if (!b || newBatch || b.batch_id === p.journaledBatch) return {}
    // The per-file journal's own batch of these very rows resumes with its own keys: it never pays a row twice.
    if (p.journaledBatch && (await this.ctl.importBatchIds(p.digest)).includes(p.journaledBatch)) return {}
    if (this.team && canPlanAgain && !b.finished_at && !p.journaledBatch) return {adopt: {batchId: b.batch_id, file: b.file, journal: await this.ctl.importJournal(b.batch_id)}}
    throw refusal((await this.ctl.importBatch(p.digest, true)) ?? b, this.team)
  }

  /** What the team store's journal records of this batch beyond the per-file one (another machine's runs). */
  async catchUp(p: ImportPlan): Promise<void> {
    if (!this.team || !p.journaledBatch) return
    const entries = await this.ctl.importJournal(p.batchId)
    if (entries.length) p.absorb(entries)
  }

  async begin(p: ImportPlan): Promise<void> {
    const b = await this.ctl.recordImportBatch({digest: p.digest, batch_id: p.batchId, file: p.file, rows: p.rowCount, replaces: this.seen})
    this.seen = b.batch_id
    this.batchId = p.batchId
  }

  record(row: Pick<PlannedRow, 'key' | 'fp' | 'line' | 'n'>, rec: JournalRecord): void {
    const entry: ImportJournalEntry = {key: row.key, fp: row.fp, line: row.line, n: row.n, state: rec.state}
    if (rec.state === 'failed') Object.assign(entry, {error_status: rec.error_status ?? null, error_code: rec.error_code ?? null, message: rec.message})
    else if (rec.state !== 'sent') Object.assign(entry, {kind: rec.kind, move_id: rec.move_id, move_status: rec.move_status, http_status: rec.http_status, warning: rec.warning ?? null})
    this.queue.push({batchId: this.batchId, entry})
    // A failed write is kept (this.failure) and stops the run; the promise itself never rejects.
    if (this.queue.length >= 500) void this.write()
    else this.timer ??= setTimeout(() => void this.write(), 50)
  }

  /** Writes the records queued, after those before them; a failure stops the run (see guard). */
  private write(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.queue.splice(0)
    if (batch.length) {
      this.writing = this.writing.then(async () => {
        if (this.failure) return
        try {
          await this.ctl.recordImportRows(batch[0].batchId, batch.map((b) => b.entry))
        } catch (err) {
          this.failure = err
        }
      })
    }
    return this.writing
  }

  guard(send: RowSender): RowSender {
    const check = () => {
      if (this.failure) throw new StoreWriteStopped('the control store could not be written')
    }
    const guarded: RowSender = Object.assign(async (row: Parameters<RowSender>[0]) => (check(), send(row)), {
      ...(send.prepare && {prepare: async (row: Parameters<RowSender>[0]) => (check(), send.prepare!(row))}),
      ...(send.drain && {drain: () => send.drain!()}),
    })
    return guarded
  }

  async drain(): Promise<void> {
    await this.write()
    if (this.failure) throw this.failure
  }

  async finish(p: ImportPlan): Promise<void> {
    await this.ctl.finishImportBatch(p.batchId)
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    await this.writing.catch(() => undefined)
    await this.ctl.close()
  }
}
