/**
 * Matching the rows of a file to its journal: a row keeps the key it was sent with (by content,
 * preferring its own line), new rows get fresh keys, and a sent row whose content is gone while its
 * line holds another row is a change that stops the import.
 */
import {contentHash, deriveKey, type ImportRow, type RowError} from './csv.js'
import {isDefinitiveRefusal, type JournalEntry, type JournalState} from './journal.js'


export type MatchedRow = ImportRow & {key: string; prior?: JournalEntry}

export interface MatchResult {
  /** Every row of the file, in file order, with its key (a journaled row keeps the key it was sent with). */
  rows: MatchedRow[]
  /** Rows already sent whose content changed: the import must stop. */
  changed: RowError[]
  /** Journaled rows that may have made a move and are no longer in the file. */
  missing: JournalEntry[]
}

/**
 * Matches the rows of a file to the rows its journal has sent, so that a row keeps its key
 * whatever was appended, inserted or reordered around it.
 *
 * - A row with an `idempotency_key` cell matches the journal entry of that key. If that key was
 *   sent (and may have made a move) with other content, the row has changed.
 * - Other rows match journal entries of the same content (from, to, amount, currency,
 *   auto_approve, metadata): first an entry sent from the same line, then the rest in line order.
 * - Rows left over are new: each gets the derived key of the smallest occurrence number the
 *   journal does not hold yet (on a first run: 1, 2, 3 for identical rows in file order).
 * - A journal entry left over that may have made a move has CHANGED when its line now holds a new
 *   row: the content it was sent with is nowhere in the file, and its line reads something else
 *   that was never sent. Otherwise (its line is gone, or holds a row matched elsewhere) it was
 *   removed from the file: reported, not an error. An entry the API refused outright (a 4xx
 *   other than 408, 409, 429) made no move, so a row fixed after such a failure is simply new.
 *
 * Journals written before content hashes were recorded: an entry's content is recovered when a
 * row of the file derives its key (the same content and occurrence as when it was sent); an
 * entry that no row derives is treated as above, with unknown content.
 */
export function matchRows(rows: ImportRow[], state: JournalState, batchId: string): MatchResult {
  const hash = new Map<ImportRow, string>(rows.map((r) => [r, contentHash(r.fingerprint)]))
  const entries = [...state.entries.values()].map((e) => ({...e}))
  // Old journals: recover the content of derived keys from the rows that derive them.
  if (entries.some((e) => !e.fp)) {
    const counts = new Map<string, number>()
    for (const r of rows) if (!r.idempotency_key) counts.set(r.fingerprint, (counts.get(r.fingerprint) ?? 0) + 1)
    const byKey = new Map<string, string>()
    for (const [fingerprint, c] of counts) for (let n = 1; n <= c; n++) byKey.set(deriveKey(batchId, fingerprint, n), contentHash(fingerprint))
    for (const r of rows) if (r.idempotency_key) byKey.set(r.idempotency_key, hash.get(r)!)
    for (const e of entries) e.fp ??= byKey.get(e.key)
  }
  const byKey = new Map(entries.map((e) => [e.key, e]))
  const used = new Set<JournalEntry>()
  const prior = new Map<ImportRow, JournalEntry>()
  const changed = new Map<number, string>()

  for (const r of rows) {
    if (!r.idempotency_key) continue
    const e = byKey.get(r.idempotency_key)
    if (!e) continue
    used.add(e)
    if (e.landed && e.fp && e.fp !== hash.get(r)) {
      changed.set(r.line, `idempotency_key "${r.idempotency_key}" was sent${e.line === r.line ? '' : ` from line ${e.line}`} with other content`)
    } else prior.set(r, e)
  }
  const explicit = new Set(rows.flatMap((r) => (r.idempotency_key ? [r.idempotency_key] : [])))
  const pool = new Map<string, JournalEntry[]>()
  for (const e of entries) {
    if (used.has(e) || !e.fp || explicit.has(e.key)) continue
    const list = pool.get(e.fp) ?? []
    list.push(e)
    pool.set(e.fp, list)
  }
  for (const list of pool.values()) list.sort((x, y) => x.line - y.line)
  const derived = rows.filter((r) => !r.idempotency_key)
  // Same content, same line first; then the rest of each content in line order.
  for (const r of derived) {
    const list = pool.get(hash.get(r)!)
    const i = list?.findIndex((e) => e.line === r.line) ?? -1
    if (i >= 0) prior.set(r, list!.splice(i, 1)[0])
  }
  for (const r of derived) {
    if (prior.has(r)) continue
    const e = pool.get(hash.get(r)!)?.shift()
    if (e) prior.set(r, e)
  }
  for (const r of prior.keys()) used.add(prior.get(r)!)

  const taken = new Set([...entries.map((e) => e.key), ...explicit])
  const nextN = new Map<string, number>()
  const out: MatchedRow[] = rows.map((r) => {
    const e = prior.get(r)
    if (e) return {...r, key: e.key, prior: e}
    if (r.idempotency_key) return {...r, key: r.idempotency_key}
    let n = nextN.get(r.fingerprint) ?? 1
    while (taken.has(deriveKey(batchId, r.fingerprint, n))) n++
    const key = deriveKey(batchId, r.fingerprint, n)
    taken.add(key)
    nextN.set(r.fingerprint, n + 1)
    return {...r, key}
  })

  const rowAt = new Map(out.map((r) => [r.line, r]))
  const missing: JournalEntry[] = []
  for (const e of entries) {
    if (used.has(e) || !e.landed) continue
    const now = rowAt.get(e.line)
    if (now && !now.prior && !changed.has(e.line)) {
      changed.set(e.line, e.fp ? 'differs from the row sent from this line, and that row is no longer in the file' : 'the journal (written by an older payops) records a row sent from this line that the file no longer holds')
    } else if (!now || now.prior) missing.push(e)
  }
  return {
    rows: out,
    changed: [...changed].map(([line, message]) => ({line, message})).sort((a, b) => a.line - b.line),
    missing: missing.sort((a, b) => a.line - b.line),
  }
}
