/**
 * `moves import FILE` by a member without the key: every row is checked offline (the file's own
 * checks; the subaccounts are the worker's to check when it sends), the payroll is recorded in the
 * team store by the digest of its rows (the same rows again, under any name, are refused unless
 * --new-batch), and each row becomes a money request with its own Idempotency-Key. Nothing is sent.
 */
import {randomUUID} from 'node:crypto'
import {readFileSync} from 'node:fs'
import type {CommandContext} from '../context/index.js'
import {openControlStore} from '../control/index.js'
import type {MoneyRequestInput} from '../control/requests.js'
import {ConflictError, UsageError} from '../errors.js'
import {deriveKey, parseImportCsv, type ImportRow} from '../import/csv.js'
import {digestPrefix, RowsDigest} from '../import/digest.js'
import {formatTotals} from '../money.js'
import type {Column} from '../output/index.js'
import {escapeControls} from '../output/safe.js'
import {plural} from '../text.js'
import {memberWithoutKey, recordRequests} from './request.js'

export interface KeylessImportOptions {
  file: string
  dryRun: boolean
  currency: string
  newBatch: boolean
}

const COLUMNS: Column[] = [{key: 'line'}, {key: 'request'}, {key: 'status'}, {key: 'amount', money: {amount: 'amount_in_minor_units', currency: 'currency_code'}}, {key: 'from'}, {key: 'to'}, {key: 'idempotency_key', header: 'key'}]

async function readRows(ctx: CommandContext, opts: KeylessImportOptions): Promise<ImportRow[]> {
  let text: string
  try {
    text = opts.file === '-' ? (await ctx.readStdin()).toString('utf8') : readFileSync(opts.file, 'utf8')
  } catch (err) {
    throw new UsageError(`Cannot read ${opts.file}: ${(err as Error).message}`)
  }
  const parsed = parseImportCsv(text, opts.currency)
  if (parsed.errors.length) {
    for (const e of parsed.errors) ctx.out.note(`line ${e.line}: ${e.message}`)
    throw new UsageError(`${plural(parsed.errors.length, 'problem')} in ${opts.file}; nothing was requested.`)
  }
  return parsed.rows
}

/** Each row's request: its key the file's, else derived from the batch and the row's content. */
function inputsOf(rows: readonly ImportRow[], batchId: string): MoneyRequestInput[] {
  const seen = new Map<string, number>()
  return rows.map((r) => {
    const n = (seen.get(r.fingerprint) ?? 0) + 1
    seen.set(r.fingerprint, n)
    return {
      kind: 'move.create', currency: r.currency, amount: r.amount_in_minor_units, from: r.from_subaccount_id, to: r.to_subaccount_id,
      idempotency_key: r.idempotency_key ?? deriveKey(batchId, r.fingerprint, n), auto_approve: r.auto_approve !== false, ...(r.client_metadata ? {metadata: r.client_metadata} : {}),
    }
  })
}

function totalsOf(inputs: readonly MoneyRequestInput[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const m of inputs) out[m.currency] = (out[m.currency] ?? 0) + m.amount
  return out
}

/** True when this run was a member's without the key (the rows were requested, or the dry run shown); false otherwise. */
export async function importWithoutKey(opts: KeylessImportOptions, ctx: CommandContext): Promise<boolean> {
  if (!memberWithoutKey(ctx)) return false
  const rows = await readRows(ctx, opts)
  const digest = new RowsDigest()
  for (const r of rows) digest.add(r)
  const hex = digest.hex()
  const store = await openControlStore(ctx)
  try {
    const earlier = await store.importBatch(hex, true)
    if (earlier && !opts.newBatch) {
      const how = earlier.sent ? `${earlier.sent} of ${earlier.rows} rows sent` : `${plural(earlier.rows, 'row')}, requested or started`
      throw new ConflictError(`The rows of ${opts.file} are batch ${digestPrefix(hex)}, recorded in the team store ${store.location} by ${earlier.started_by} at ${earlier.started_at} from ${escapeControls(earlier.file)} (${how}). Nothing was requested: a payroll is paid once; --new-batch says this is a new one.`, digestPrefix(hex), null)
    }
    const batchId = randomUUID()
    const inputs = inputsOf(rows, batchId)
    const line = `${plural(inputs.length, 'move')} from ${opts.file}: ${formatTotals(totalsOf(inputs))}`
    if (opts.dryRun) {
      ctx.out.note(`Dry run: ${line} would be requested in the team store ${store.location} (batch ${digestPrefix(hex)}); nothing was requested or sent.`)
      await ctx.out.list(rows.map((r, i) => ({line: r.line, request: null, status: 'dry run', amount_in_minor_units: r.amount_in_minor_units, currency_code: r.currency, from: r.from_subaccount_id, to: r.to_subaccount_id, idempotency_key: inputs[i].idempotency_key})), COLUMNS)
      return true
    }
    await store.recordImportBatch({digest: hex, batch_id: batchId, file: opts.file, rows: rows.length, replaces: earlier?.batch_id ?? null})
    const made = await recordRequests(store, inputs)
    await store.finishImportBatch(batchId)
    const refs = made.map((m) => m.ref)
    ctx.out.note(`requested: awaits a checker. ${line} ${made.length === 1 ? 'is request' : 'are requests'} ${refs.length > 2 ? `${refs[0]} to ${refs.at(-1)}` : refs.join(' and ')} in the team store ${store.location} (batch ${digestPrefix(hex)}), requested by ${made[0]?.maker ?? '?'}; nothing was sent. Another member approves each (\`payops approvals review req-N\`), then the worker carries them out.`)
    await ctx.out.list(made.map((m, i) => ({line: rows[i].line, request: m.ref, status: 'requested', amount_in_minor_units: m.amount, currency_code: m.currency, from: m.from, to: m.destination, idempotency_key: m.idempotency_key})), COLUMNS)
    return true
  } finally {
    await store.close()
  }
}

