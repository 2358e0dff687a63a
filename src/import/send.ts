/**
 * The send of one import row: through the movement pipeline, so that its outcome is classified
 * and recorded as every other money request's is.
 */
import {prepareConfirmed, type MovementPorts} from '../movements/index.js'
import type {Known} from '../movements/types.js'
import type {Move} from '../api/schemas/moves.js'
import type {PlannedRow} from './store.js'

/** A row of the plan, with the Idempotency-Key it is sent with. */
export type KeyedRow = PlannedRow

/**
 * `created`: this run made the move (even when a retry is what confirmed it). `replayed`: an
 * earlier run made it; nothing moved now. `advanced`: the replay moved it on (created -> settled).
 */
export type RowOutcomeKind = 'created' | 'replayed' | 'advanced'

export interface RowOutcome {
  kind: RowOutcomeKind
  httpStatus: number
  move: Move
  /** The API's `warning` (207: the move exists but approval or settlement failed). */
  warning?: string
  /** The profile whose maker-checker policy created it without auto-approval: it awaits a checker. */
  heldBy?: string
}

/**
 * Where a row's move stands: `settled` (money moved), `awaiting` (auto_approve=false, or held by
 * maker-checker: created, awaiting approval) or `open` (auto-approved, but its approval or settlement failed: it
 * exists, approved or created, and moved nothing). An answer without a status is read from its
 * HTTP status: a 207 is open; otherwise the move is where the request asked it to be.
 */
export function settlementOf(o: RowOutcome, row: Pick<KeyedRow, 'auto_approve'>): 'settled' | 'awaiting' | 'open' {
  const status = o.move.status?.toLowerCase()
  const asked = row.auto_approve === false ? 'awaiting' : 'settled'
  if (status === 'settled') return 'settled'
  if (status === 'created' && (asked === 'awaiting' || o.heldBy)) return 'awaiting'
  return status || o.warning || o.httpStatus === 207 ? 'open' : asked
}

/** A row whose intent is on record: send it, or give it up (the run stopped first). */
export interface PreparedRow {
  send(): Promise<RowOutcome>
  abandon(reason: string): Promise<void>
}

/**
 * Sends one row with its key; resolves with the outcome or throws a PayopsError. `prepare`, when
 * given, records the row's intent first so that the run can do it while the previous row is in
 * flight; `drain` resolves once every audit record of the rows sent so far is on disk.
 */
export type RowSender = ((row: KeyedRow) => Promise<RowOutcome>) & {
  prepare?: (row: KeyedRow) => Promise<PreparedRow>
  drain?: () => Promise<void>
}

/**
 * Each row goes through the movement pipeline (the batch was confirmed once, as a whole, by the
 * command): sent with its own Idempotency-Key, classified (created, replayed or advanced; a key
 * naming another move fails the row, exit 5), and recorded in the audit trail with amount,
 * currency, from and to.
 *
 * The intent is on disk before its row is sent, as for every money request; `prepare` writes it
 * while the previous row of the same slot is in flight. The outcome record is written while the
 * next rows go out (it joins the group of their intents); `drain` waits for the last of them
 * before the import reports. A row prepared but not sent (the run stopped) gets an outcome record
 * saying so.
 */
export function pipelineSender(ports: MovementPorts, journaled: (key: string) => Known | undefined = () => undefined): RowSender {
  const inFlight = new Set<Promise<void>>()
  const track = (written: Promise<void>): Promise<void> => {
    const done = written.finally(() => inFlight.delete(done))
    inFlight.add(done)
    return done
  }
  const audit = ports.audit
  const background: MovementPorts = {
    ...ports,
    // What earlier runs of this batch did is in its journal (a row it records as done is not sent
    // again; one whose move did not settle is, and the state recorded tells a replay that settles
    // it now); the answer's Date header and the move's times tell a replay from a new move. Looking
    // a row's key up in the whole audit trail, which grows by two records a row, would make a
    // large import read hundreds of megabytes before its first row.
    history: {byKey: journaled, byResource: (id) => ports.history.byResource(id), claimOf: () => undefined, movedSince: () => new Map()},
    // The team store's outcome records, likewise, are waited for by drain, not by the next row.
    ...(ports.team && {team: {...ports.team, defer: (written: Promise<void>) => void track(written)}}),
    ...(audit && {
      audit: {
        intent: (info) => audit.intent(info),
        outcome: (info) => {
          // The hook never rejects (a failure to record an outcome is a warning).
          void track(audit.outcome(info))
          return Promise.resolve()
        },
      },
    }),
  }
  const prepare = async (row: KeyedRow): Promise<PreparedRow> => {
    const p = await prepareConfirmed(
      {
        kind: 'move.create',
        from: row.from_subaccount_id,
        to: row.to_subaccount_id,
        amount: {minor: row.amount_in_minor_units},
        sourceCurrency: row.currency,
        autoApprove: row.auto_approve !== false,
        metadata: row.client_metadata,
        idempotencyKey: row.key,
      },
      background,
    )
    return {
      send: async () => {
        const o = await p.send()
        // (A row is sent, never `requested`: a member without the key records rows elsewhere.)
        return {kind: o.kind as RowOutcomeKind, httpStatus: o.http_status, move: o.resource as Move, ...(o.warning ? {warning: o.warning} : {}), ...(o.held_by ? {heldBy: o.held_by} : {})}
      },
      abandon: (reason) => p.abandon(reason),
    }
  }
  const send: RowSender = async (row) => (await prepare(row)).send()
  send.prepare = prepare
  send.drain = async () => {
    while (inFlight.size) await Promise.all(inFlight)
  }
  return send
}
