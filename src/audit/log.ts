/**
 * The writer of the audit trail: records appended by a process are grouped (those queued while one
 * group is written go in the next), and each group is one transaction of the store (see
 * store.ts), so a large import writes a record per row without a transaction per record.
 */
import {inTurn} from '../control/turns.js'
import {TrailStore, type Entry} from './store.js'
import type {AuditFields, TrailCheck} from './records.js'
import {systemClock} from '../context/host.js'

interface Queued extends Entry {
  resolve: () => void
  reject: (e: unknown) => void
}

export class AuditLog {
  private queue: Queued[] = []
  private flushing?: Promise<void>
  private store?: TrailStore

  constructor(readonly dir: string) {}

  /**
   * Appends a record; resolves once it is committed (grouped with others queued meanwhile). Rejects
   * with an AuditTrailError, writing nothing, when the trail's end does not match its head, and
   * with what `check` threw when it refuses the record (see {@link TrailCheck}).
   */
  append(fields: AuditFields, check?: TrailCheck): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({fields, check, resolve, reject})
      if (!this.flushing) this.flushing = this.flushLoop()
    })
  }

  /** Resolves once every record appended so far is committed. */
  async settled(): Promise<void> {
    while (this.flushing) await this.flushing
  }

  /** Settles and closes the store (a later append opens it again). */
  async close(): Promise<void> {
    await this.settled()
    this.store?.close()
    this.store = undefined
  }

  private async flushLoop(): Promise<void> {
    // Records appended while this turn of the event loop lasts (answers read together) join the first group.
    await new Promise((r) => setImmediate(r))
    try {
      while (this.queue.length) {
        const batch = this.queue
        this.queue = []
        await this.write(batch)
      }
    } finally {
      this.flushing = undefined
    }
  }

  /**
   * One group: committed in one transaction (the checks refuse what they refuse at once), then
   * the log synced off the event loop, and only then are the written records' callers told. The
   * transaction waits its turn with the control store's in this process (src/control/turns.ts,
   * keyed by the file both write): a second connection's BEGIN IMMEDIATE would wait for the write
   * lock synchronously, holding up the event loop the holder needs to finish.
   */
  private async write(batch: Queued[]): Promise<void> {
    let written, store: TrailStore
    try {
      store = this.store ??= TrailStore.open(this.dir)
      written = await inTurn(store.location, async () => store.append(batch, () => new Date(systemClock.now()).toISOString()))
    } catch (err) {
      for (const b of batch) b.reject(err)
      return
    }
    written.forEach((w, i) => void (w.ok || batch[i].reject(w.error)))
    try {
      if (written.some((w) => w.ok)) await store.sync()
      written.forEach((w, i) => void (w.ok && batch[i].resolve()))
    } catch (err) {
      written.forEach((w, i) => void (w.ok && batch[i].reject(err)))
    }
  }
}
