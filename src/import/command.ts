/**
 * `moves import`: plan the file against its journal, check every row (the file, sources and
 * destinations for this key, currencies, limits), confirm the batch once, then send each row
 * through the movement pipeline with its own key, journaling every outcome; Ctrl-C stops after the
 * moves in flight and the summary says what was sent.
 */
import type {CommandContext} from '../context/index.js'
import {NotConfirmedError, PartialError, UsageError} from '../errors.js'
import {confirmBatch, limitReport, portsOf, type GuardFlags} from '../movements/command.js'
import {dailyViolations, hasDailyCap} from '../guardrails.js'
import {auditHistory} from '../movements/history.js'
import {utcDayStart} from '../movements/guard.js'
import {keyIdOf} from '../api/redact.js'
import {formatMoney, toDecimalString} from '../money.js'
import type {Column} from '../output/index.js'
import {rowsProgress} from '../output/progress.js'
import {importFile, type ImportPlan, type PlannedRow} from './index.js'
import {pipelineSender} from './send.js'

export interface ImportOptions {
  file: string
  /** The database that records what was sent (default: beside the file); required for stdin. */
  journal?: string
  dryRun: boolean
  concurrency: number
  currency: string
  newBatch: boolean
  guard: GuardFlags
}

const FAILURE_COLUMNS: Column[] = [{key: 'line'}, {key: 'key'}, {key: 'message'}]
/** Each header is the JSON key it shows (one name per count, in a table and in JSON). */
const named = (key: string, get?: Column['get']): Column => ({key, header: key, ...(get ? {get} : {})})
const money = (key: string) => named(key, (r) => describeTotals(r[key] as Record<string, number>))
const SUMMARY_COLUMNS: Column[] = [
  named('file'),
  named('journal'),
  named('rows'),
  named('created'),
  named('replayed'),
  named('advanced'),
  named('already_done'),
  named('partial'),
  named('failed'),
  named('not_sent'),
  named('interrupted'),
  money('total_this_run'),
  money('total_overall'),
]
const DRY_RUN_COLUMNS: Column[] = [named('file'), named('rows'), named('to_send'), named('already_done'), named('duplicates'), named('identical_rows'), money('total_to_send'), named('journal')]

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** "2, 5-7, 9" */
function describeLines(lines: number[]): string {
  const out: string[] = []
  const sorted = [...lines].sort((a, b) => a - b)
  for (let i = 0; i < sorted.length; i++) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++
    out.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]))
    i = j
  }
  return out.length > 20 ? `${out.slice(0, 20).join(', ')} and more` : out.join(', ')
}

const describeTotals = (totals: Record<string, number>) => Object.entries(totals ?? {}).map(([cur, v]) => formatMoney(v, cur)).join(', ') || 'none'

export async function runImportCommand(opts: ImportOptions, ctx: CommandContext): Promise<void> {
  const plan = await importFile.plan(opts.file, {defaultCurrency: opts.currency, newBatch: opts.newBatch, journal: opts.journal, stdin: ctx.io.stdin})
  try {
    await planned(plan, opts, ctx)
  } finally {
    await plan.close()
  }
}

async function planned(plan: ImportPlan, opts: ImportOptions, ctx: CommandContext): Promise<void> {
  const f = opts
  const file = opts.file
  if (plan.errors.length) {
    for (const e of plan.errors) ctx.out.note(`line ${e.line}: ${e.message}`)
    throw new UsageError(`${plural(plan.errors.length, 'problem')} in ${file}; nothing was sent.`)
  }
  if (plan.changed.length) {
    for (const e of plan.changed) ctx.out.note(`line ${e.line}: ${e.message}`)
    const lines = plan.changed.map((e) => e.line)
    throw new UsageError(
      `${plural(lines.length, 'row')} already sent ${lines.length === 1 ? 'has' : 'have'} changed (line${lines.length === 1 ? '' : 's'} ${describeLines(lines)} of ${file}, journal ${plan.journalPath}); nothing was sent. ` +
        'A sent row must stay as it was: restore it (its move was made and stays) and add any correction as a new row, or pass --new-batch to import the whole file again with new keys.',
    )
  }
  if (plan.missing.length) {
    const n = plan.missing.length
    ctx.out.note(`${plural(n, 'row')} the journal records as sent (line${n === 1 ? '' : 's'} ${describeLines(plan.missing)}) ${n === 1 ? 'is' : 'are'} no longer in the file; ${n === 1 ? 'its move was' : 'their moves were'} made and stay${n === 1 ? 's' : ''}.`)
  }
  const pendingCount = plan.pendingCount
  if (!plan.isNewBatch && (plan.fresh < plan.rowCount || plan.missing.length)) {
    const fresh = plan.fresh
    const again = pendingCount - fresh
    const todo = [fresh ? `${plural(fresh, 'new row')}` : '', again ? `${plural(again, 'unfinished row')} (with the ${again === 1 ? 'key it was' : 'keys they were'} sent with)` : ''].filter(Boolean)
    ctx.out.note(`${plural(plan.alreadyDone, 'row')} ${plan.alreadyDone === 1 ? 'was' : 'were'} imported before (journal ${plan.journalPath}); ${todo.length ? `${todo.join(' and ')} to send` : 'nothing to send'}.`)
  }
  if (plan.duplicates.length) {
    const n = plan.duplicates.length
    ctx.out.note(
      `--new-batch: ${plural(n, 'row')} (line${n === 1 ? '' : 's'} ${describeLines(plan.duplicates)}) ${n === 1 ? 'has' : 'have'} the same content as ${n === 1 ? 'a row' : 'rows'} the earlier batch already sent (journal ${plan.journalPath}); this import sends ${n === 1 ? 'it' : 'them'} again, as new moves with new keys.`,
    )
  }
  // Identical rows are paid once each: said where it matters, in the dry run and before the confirmation.
  const same = plan.repeats
  if (same.length) ctx.out.note(`${plural(same.length, 'row')} (line${same.length === 1 ? '' : 's'} ${describeLines(same)}) repeat${same.length === 1 ? 's' : ''} an earlier row of ${file} exactly: each is a move of its own and is paid.`)
  // The profile's limits first (exit 3), then the read-only checks against the API (exit 2);
  // a row in minor units without a currency cell takes its source's currency there, so its
  // limits are checked again in that currency.
  let overLimits = enforceLimits(ctx, opts, plan.pending())
  if (pendingCount) {
    const problems = await importFile.check(await ctx.api(['moves', 'subaccounts']), plan)
    if (problems.length) {
      for (const e of problems) ctx.out.note(`line ${e.line}: ${e.message}`)
      throw new UsageError(`${plural(problems.length, 'row')} of ${file} failed the checks; nothing was sent.`)
    }
    if (plan.currenciesSet) overLimits = enforceLimits(ctx, opts, plan.pending())
  }
  const totals = plan.summary.pendingTotals
  enforceDailyCap(ctx, opts, totals)
  // The confirmation checks the limits of each move on its own: the rows over them are enough.
  const movements = overLimits.map(movementOf)
  const summaryLine = `Import ${plural(pendingCount, 'move')} from ${file}: ${describeTotals(totals)}${plan.alreadyDone ? ` (${plan.alreadyDone} of ${plan.rowCount} rows already done)` : ''}`
  if (f.dryRun) {
    ctx.out.note(`${summaryLine}. Dry run: nothing was sent.`)
    await ctx.out.resource(
      {file, journal: plan.journalPath, batch_id: plan.batchId, rows: plan.rowCount, to_send: pendingCount, already_done: plan.alreadyDone, duplicates: plan.duplicates.length, identical_rows: same.length, total_to_send: totals, dry_run: true},
      DRY_RUN_COLUMNS,
    )
    return
  }
  if (plan.duplicates.length) await confirmResend(ctx, opts, plan.duplicates.length)
  if (pendingCount > 0) {
    const currencies = Object.keys(totals)
    const typed = currencies.length === 1 ? toDecimalString(totals[currencies[0]], currencies[0]) : String(pendingCount)
    await confirmBatch(ctx, opts.guard, {action: summaryLine, amount: describeTotals(totals), details: {journal: plan.journalPath}}, movements, typed, {evenOnTest: true})
  }
  const progress = ctx.io.stderrIsTTY ? await rowsProgress(ctx.io.stderr, plan.rowCount) : undefined
  const abort = new AbortController()
  const stopListening = ctx.onInterrupt((count) => {
    if (count === 1) {
      abort.abort()
      progress?.stop()
      ctx.out.note('Stopping after the moves in flight (Ctrl-C again to quit at once; a re-run finishes the rest exactly once).')
    } else {
      void plan.close()
      ctx.exitNow(130)
    }
  })
  let result
  try {
    const send = pipelineSender(await portsOf(ctx, ['move.create'], opts.guard))
    result = await importFile.run(plan, {concurrency: f.concurrency, send, signal: abort.signal, onProgress: (n) => progress?.update(n)})
  } finally {
    progress?.stop()
    stopListening()
  }
  const {failures, ...counts} = result
  const summary = {file, journal: plan.journalPath, batch_id: plan.batchId, rows: plan.rowCount, ...counts, failures}
  await ctx.out.resource(summary, SUMMARY_COLUMNS)
  // Machine formats carry the failures inside the summary; a table lists them below it.
  if (!ctx.out.machine && failures.length) {
    ctx.out.note('')
    await ctx.out.list(failures, FAILURE_COLUMNS)
  }
  if (result.interrupted) {
    throw new PartialError(`Interrupted: ${plan.rowCount - result.not_sent - result.failed} of ${plan.rowCount} rows done, ${result.not_sent} not sent (${describeTotals(result.total_this_run)} moved by this run); re-run the same command to finish.`)
  }
  if (result.failed > 0) throw new PartialError(`${result.failed} of ${plan.rowCount} rows failed (see the journal ${plan.journalPath}); re-run to retry them with the same keys.`)
}

function movementOf(r: PlannedRow) {
  return {amount_in_minor_units: r.amount_in_minor_units, currency: r.currency, to: r.to_subaccount_id, label: `line ${r.line}`}
}

/**
 * Every row over the profile's limits is listed; refused (exit 3) unless --override-limits
 * (confirmed later). Row by row, so that a large file is never copied as a list of moves.
 * Returns the rows over the limits.
 */
function enforceLimits(ctx: CommandContext, opts: ImportOptions, rows: Iterable<PlannedRow>): PlannedRow[] {
  // No limits bind the key: nothing to read row by row.
  if (!ctx.profile.limitSets.some((s) => Object.keys(s.limits.max_amount ?? {}).length || s.limits.allowed_destinations?.length)) return []
  const violations: string[] = []
  const over: PlannedRow[] = []
  for (const r of rows) {
    const v = limitReport(ctx, [movementOf(r)])
    if (!v.length) continue
    over.push(r)
    violations.push(...v)
  }
  if (!violations.length) return over
  for (const v of violations) ctx.out.note(v)
  if (!opts.guard['override-limits']) {
    throw new NotConfirmedError(`${plural(violations.length, 'row breaks', 'rows break')} the profile's limits; nothing was sent (--override-limits overrides it after confirmation).`)
  }
  return over
}

/**
 * The whole file against the daily caps, before the first row: what is still to send, with what
 * moved today under the key (rows this batch already sent today are in the audit trail).
 */
function enforceDailyCap(ctx: CommandContext, opts: ImportOptions, totals: Record<string, number>): void {
  const sets = ctx.profile.limitSets
  if (!hasDailyCap(sets)) return
  const asked = new Map(Object.entries(totals).map(([c, v]) => [c.toUpperCase(), BigInt(v)]))
  const v = dailyViolations(sets, asked, auditHistory(ctx.configDir, keyIdOf(ctx.profile.apiKey)).movedSince(utcDayStart(Date.now())))
  if (!v.length) return
  for (const line of v) ctx.out.note(line)
  if (!opts.guard['override-limits']) throw new NotConfirmedError(`The import breaks the daily cap: ${v[0]}. Nothing was sent (--override-limits overrides it after confirmation).`)
}

/**
 * --new-batch re-sends rows an earlier batch already sent: a LIVE key at a terminal types their
 * count, a test key at a terminal answers yes/no; without a terminal only --yes confirms.
 */
async function confirmResend(ctx: CommandContext, opts: ImportOptions, count: number): Promise<void> {
  if (opts.guard.yes) return
  const what = `send ${plural(count, 'row')} again that ${count === 1 ? 'was' : 'were'} already sent`
  if (!ctx.prompter.interactive) throw new NotConfirmedError(`Refusing to ${what} without confirmation: no terminal to ask on. Re-run with --yes to confirm.`)
  if (!ctx.isLive) {
    if (!(await ctx.prompter.confirm(`Send ${plural(count, 'row')} again as new moves?`))) throw new NotConfirmedError('Not confirmed: nothing was sent.')
    return
  }
  const answer = await ctx.prompter.input(`Type ${count} to ${what} as new LIVE moves:`)
  if (answer.trim() !== String(count)) throw new NotConfirmedError(`Typed "${answer.trim()}", expected ${count}: not confirmed, nothing was sent.`)
}
