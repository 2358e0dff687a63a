/**
 * The audit trail: every mutating request is recorded as an `intent` before it is sent and an
 * `outcome` after, each record chained to the one before it by SHA-256 (records.ts), in the
 * control store of the config dir (store.ts: tables of `controls.sqlite`). The JSON-lines trail of earlier
 * versions is imported once on first use (import.ts); `audit export --format jsonl` writes the
 * chain as JSON lines that `audit verify FILE` checks (legacy.ts, chain.ts).
 * Nothing secret is ever written: only the fields listed in {@link AuditFields}.
 */
import {AuditTrailError} from '../errors.js'
import type {HeadState, VerifyOptions, VerifyResult} from './chain.js'
import {HEAD_LINE_KEY} from './legacy.js'
import {GENESIS, type AuditRecord} from './records.js'
import {hasTrail, TrailStore} from './store.js'

export {AuditTrailError}
export {AuditLog} from './log.js'
export {AUDIT_FILE, AUDIT_HEAD, verifyExport} from './legacy.js'
export {GENESIS, recordHash, type AuditFields, type AuditHead, type AuditRecord, type TrailCheck} from './records.js'
export {hasTrail, TrailStore} from './store.js'
export {TRAIL_FILE} from './schema.js'
export type {BackwardTime, HeadState, VerifyOptions, VerifyResult} from './chain.js'

/** `fn` on the store of `dir`, opened for it and closed after. */
function withStore<T>(dir: string, fn: (s: TrailStore) => T): T {
  const store = TrailStore.open(dir)
  try {
    return fn(store)
  } finally {
    store.close()
  }
}

/** Every record of the trail of the config dir `dir` (none when it has none: nothing is created). */
export function readAudit(dir: string): AuditRecord[] {
  return hasTrail(dir) ? withStore(dir, (s) => s.records()) : []
}

/** The trail's head, as its store keeps it. */
export function readAuditHead(dir: string): HeadState {
  return hasTrail(dir) ? withStore(dir, (s) => s.head()) : {state: 'absent'}
}

/** Walks the trail's chain in its store and checks it ends at its head (see verifyChain). */
export function verifyAudit(dir: string, opts: VerifyOptions = {}): VerifyResult {
  if (!hasTrail(dir)) return noTrail(dir, opts)
  // The control store may be there with no trail in it yet: that is no trail either.
  return withStore(dir, (s) => (s.empty() ? noTrail(dir, opts) : s.verify(opts)))
}

/** The answer for a config dir with no trail yet: record 0, the genesis hash. */
function noTrail(dir: string, opts: VerifyOptions): VerifyResult {
  const head = {seq: 0, hash: GENESIS}
  if (opts.expectHead !== undefined && !GENESIS.startsWith(opts.expectHead.toLowerCase())) {
    const reason = `the head is record 0 (there is no trail yet), not --expect-head ${opts.expectHead.toLowerCase()}`
    return {ok: false, records: 0, reason, message: `${dir}: ${reason}.`, head}
  }
  return {ok: true, records: 0, head}
}

/**
 * The trail as JSON lines, each record as stored (with `seq`, `prev` and `hash`), then its head
 * (`{"head":{"seq":N,"hash":H}}`): handed to `write` a piece at a time, all from one state of the
 * store. Resolves with the head.
 */
export function exportAudit(dir: string, write: (text: string) => void): {seq: number; hash: string} {
  if (!hasTrail(dir)) {
    const head = {seq: 0, hash: GENESIS}
    write(`${JSON.stringify({[HEAD_LINE_KEY]: head})}\n`)
    return head
  }
  return withStore(dir, (s) =>
    s.reading(() => {
      const h = s.head()
      if (h.state === 'garbled') throw new AuditTrailError(`The trail's head in ${s.location} ${h.detail}: run \`payops audit verify\`.`)
      const head = h.state === 'ok' ? h.head : {seq: 0, hash: GENESIS}
      let piece = ''
      for (const {text} of s.texts()) {
        piece += `${text}\n`
        if (piece.length >= 1 << 20) {
          write(piece)
          piece = ''
        }
      }
      write(`${piece}${JSON.stringify({[HEAD_LINE_KEY]: head})}\n`)
      return head
    }),
  )
}
