/**
 * `moves import`: plan the file against its journal, check every row (the file, sources and
 * destinations for this key, currencies, limits), confirm the batch once, then send each row
 * through the movement pipeline with its own key, journaling every outcome; Ctrl-C stops after the
 * moves in flight and the summary says what was sent.
 */
import type {CommandContext} from '../context/index.js'
import {NotConfirmedError, PartialError, UsageError} from '../errors.js'
import {closePorts, confirmBatch, dailyCapReport, limitReport, portsOf, refusals, type GuardFlags} from '../movements/command.js'
import {endedMoves, movesInDoubt} from '../movements/history.js'
import {STUCK_APPROVED} from '../movements/sentence.js'
import {makerCheckerFor} from '../movements/maker-checker.js'
import {keyIdOf} from '../api/redact.js'
import {formatTotals as describeTotals, toDecimalString} from '../money.js'
import {describeLines, plural} from '../text.js'
import type {Column} from '../output/index.js'
import {rowsProgress} from '../output/progress.js'
import {importFile, type ImportPlan, type PlannedRow} from './index.js'
import type {ImportResult, RowMove} from './run.js'
import {pipelineSender} from './send.js'
import {BatchLedger} from './batches.js'
import {digestPrefix} from './digest.js'
import {escapeControls} from '../output/safe.js'

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
  ...['file', 'journal', 'rows', 'created', 'replayed', 'advanced', 'already_done', 'partial', 'awaiting_approval', 'failed', 'not_sent', 'interrupted'].map((k) => named(k)),
  ...['total_this_run', 'total_overall', 'total_not_settled', 'total_awaiting_approval', 'total_unknown'].map(money),
]
const DRY_RUN_COLUMNS: Column[] = [named('file'), named('rows'), named('to_send'), named('held_for_approval'), named('already_done'), named('duplicates'), named('identical_rows'), money('total_to_send'), named('journal')]

export async function runImportCommand(opts: ImportOptions, ctx: CommandContext): Promise<void> {
  // A member without the key: each row becomes a request in the team store, nothing sent.
  if (!ctx.profile.apiKey && (await (await import('../team/import.js')).importWithoutKey(opts, ctx))) return
  const planOpts = {defaultCurrency: opts.currency, newBatch: opts.newBatch, journal: opts.journal, stdin: ctx.io.stdin}
  let plan = await importFile.plan(opts.file, planOpts)
  let ledger: BatchLedger | undefined
  try {
    if (!plan.errors.length) {
      // The control store decides whether these rows were paid before (a team store that cannot be reached: exit 7).
      ledger = await BatchLedger.open(ctx)
      const {adopt} = await ledger.settle(plan, opts.newBatch, opts.file !== '-')
      if (adopt) {
        await plan.close()
        plan = await importFile.plan(opts.file, {...planOpts, adopt})
        ctx.out.note(`Resuming batch ${digestPrefix(plan.digest)} of these rows, started from ${escapeControls(adopt.file)} (the team store's journal): each row is sent with the key it was sent with, rows done there are not sent again.`)
      } else await ledger.catchUp(plan)
      plan.hooks = ledger
    }
    await planned(plan, opts, ctx)
  } finally {
    await plan.close()
    await ledger?.close()
  }
}

async function planned(plan: ImportPlan, opts: ImportOptions, ctx: CommandContext): Promise<void> {
  refuseProblems(plan, opts.file, ctx)
  notePlan(plan, opts.file, ctx)
  const {overLimits, totals} = await checkPlan(plan, opts, ctx)
  if (!(await confirmPlan(plan, opts, ctx, overLimits, totals))) return
  const result = await sendPlan(plan, opts, ctx)
  await reportRun(plan, opts.file, ctx, result)
}

/** Problems of the file, and rows already sent that changed: nothing is sent (exit 2). */
function refuseProblems(plan: ImportPlan, file: string, ctx: CommandContext): void {
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
}

/** What the plan says before any check: rows gone from the file, a batch resumed. */
function notePlan(plan: ImportPlan, file: string, ctx: CommandContext): void {
  const pendingCount = plan.pendingCount
  if (!plan.isNewBatch && (plan.fresh < plan.rowCount || plan.missing.length)) {
    const {fresh, open, awaiting} = plan.summary
    const again = pendingCount - fresh - open
    const keys = (n: number) => `(with the ${n === 1 ? 'key it was' : 'keys they were'} sent with)`
    const todo = [fresh ? `${plural(fresh, 'row')} not sent before` : '', again ? `${plural(again, 'unfinished row')} ${keys(again)}` : '', open ? `${plural(open, 'row')} not settled to look up again ${keys(open)}` : ''].filter(Boolean)
    const waiting = awaiting.n ? `, ${awaiting.n} of them recorded as awaiting approval,` : ''
    ctx.out.note(`${plural(plan.alreadyDone, 'row')} ${plan.alreadyDone === 1 ? 'was' : 'were'} imported before${waiting} (journal ${plan.journalPath}); ${todo.length ? `to send: ${todo.join(' and ')}` : 'nothing to send'}.`)
  }
  noteRepeats(plan, file, ctx)
}

/** Rows sent again with --new-batch, and identical rows (each paid). */
function noteRepeats(plan: ImportPlan, file: string, ctx: CommandContext): void {
  if (plan.duplicates.length) {
    const n = plan.duplicates.length
    ctx.out.note(
      `--new-batch: ${plural(n, 'row')} (line${n === 1 ? '' : 's'} ${describeLines(plan.duplicates)}) ${n === 1 ? 'has' : 'have'} the same content as ${n === 1 ? 'a row' : 'rows'} the earlier batch already sent (journal ${plan.journalPath}); this import sends ${n === 1 ? 'it' : 'them'} again, as new moves with new keys.`,
    )
  }
  // Identical rows are paid once each: said where it matters, in the dry run and before the confirmation.
  const same = plan.repeats
  if (same.length) ctx.out.note(`${plural(same.length, 'row')} (line${same.length === 1 ? '' : 's'} ${describeLines(same)}) repeat${same.length === 1 ? 's' : ''} an earlier row of ${file} exactly: each is a move of its own and is paid.`)
}

/**
 * The profile's limits first (exit 3), then the read-only checks against the API (exit 2); a row in minor units without a
 * currency cell takes its source's currency there, so its limits are checked again in that currency. A dry run goes on
 * past a refusal, to report every problem of every row (with the first refusal's exit code).
 */
async function checkPlan(plan: ImportPlan, opts: ImportOptions, ctx: CommandContext) {
  const [f, file, pendingCount] = [opts, opts.file, plan.pendingCount]
  const refused = refusals(f.dryRun)
  let overLimits = refused.checked(() => enforceLimits(ctx, opts, plan.pending()), [])
  if (pendingCount) {
    const problems = await importFile.check(await ctx.api(['moves', 'subaccounts']), plan)
    for (const e of problems) ctx.out.note(`line ${e.line}: ${e.message}`)
    if (problems.length) refused.checked(() => { throw new UsageError(`${plural(problems.length, 'row')} of ${file} failed the checks; nothing was sent.`) }, undefined)
    if (plan.currenciesSet && !refused.any) overLimits = enforceLimits(ctx, opts, plan.pending())
  }
  const totals = plan.summary.pendingTotals
  refused.checked(() => enforceDailyCap(ctx, opts, totals), undefined)
  refused.end()
  return {overLimits, totals}
}

/** The dry run's report (false: stop there), or the confirmation of the batch. */
async function confirmPlan(plan: ImportPlan, opts: ImportOptions, ctx: CommandContext, overLimits: PlannedRow[], totals: Record<string, number>): Promise<boolean> {
  const [f, file, pendingCount, same] = [opts, opts.file, plan.pendingCount, plan.repeats]
  // The confirmation checks the limits of each move on its own: the rows over them are enough.
  const movements = overLimits.map(movementOf)
  const summaryLine = `Import ${plural(pendingCount, 'move')} from ${file}: ${describeTotals(totals)}${plan.alreadyDone ? ` (${plan.alreadyDone} of ${plan.rowCount} rows already done)` : ''}`
  const held = heldRows(ctx, plan.pending())
  if (held.lines.length) ctx.out.note(heldLine(held, f.dryRun))
  if (f.dryRun) {
    ctx.out.note(`${summaryLine}. Dry run: nothing was sent.`)
    await ctx.out.resource(
      {file, journal: plan.journalPath, batch_id: plan.batchId, rows: plan.rowCount, to_send: pendingCount, held_for_approval: held.lines.length, already_done: plan.alreadyDone, duplicates: plan.duplicates.length, identical_rows: same.length, total_to_send: totals, dry_run: true},
      DRY_RUN_COLUMNS,
    )
    return false
  }
  if (plan.duplicates.length) await confirmResend(ctx, opts, plan.duplicates.length)
  if (pendingCount > 0) {
    const currencies = Object.keys(totals)
    const typed = currencies.length === 1 ? toDecimalString(totals[currencies[0]], currencies[0]) : String(pendingCount)
    await confirmBatch(ctx, opts.guard, {action: summaryLine, amount: describeTotals(totals), details: {journal: plan.journalPath}}, movements, typed, {evenOnTest: true})
  }
  return true
}

/** Sends the rows through the movement pipeline; the first Ctrl-C stops after the moves in flight. */
async function sendPlan(plan: ImportPlan, opts: ImportOptions, ctx: CommandContext): Promise<ImportResult> {
  const f = opts
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
  let ports: Awaited<ReturnType<typeof portsOf>> | undefined
  try {
    ports = await portsOf(ctx, ['move.create'], opts.guard)
    const send = pipelineSender(ports, (key) => plan.store.openMove(key))
    result = await importFile.run(plan, {concurrency: f.concurrency, send, signal: abort.signal, onProgress: (n) => progress?.update(n)})
  } finally {
    progress?.stop()
    stopListening()
    if (ports) await closePorts(ports)
  }
  return result
}

/**
 * Rows recorded as awaiting approval whose move had a cancel or an approval sent from this machine
 * whose answer was lost: the move may be canceled, or settled, since. The service offers no read of
 * one move, so the sentence names the command that finds out (each is safe to run again: a move
 * already canceled or settled is said so, and nothing moves twice).
 */
function inDoubt(ctx: CommandContext, waiting: Array<{line: number; move_id: string}>): string | undefined {
  const doubt = movesInDoubt(ctx.configDir, keyIdOf(ctx.profile.apiKey), waiting.map((w) => w.move_id))
  const rows = waiting.filter((w) => doubt.has(w.move_id))
  if (!rows.length) return undefined
  const first = rows[0]
  const change = doubt.get(first.move_id) === 'cancel' ? 'cancel' : 'approve'
  const n = rows.length
  return (
    `${plural(n, 'row')} recorded as awaiting approval (line${n === 1 ? '' : 's'} ${describeLines(rows.map((r) => r.line))}) ${n === 1 ? 'had a cancel or an approval of its move' : 'had cancels or approvals of their moves'} sent whose answer was lost: ` +
    `${n === 1 ? 'it' : 'each'} may be canceled or settled since; \`payops moves ${change} ${first.move_id}\` finds out for line ${first.line}`
  )
}

/** The run's summary, and the partial outcome (exit 6) of rows failed, unsettled or interrupted. */
async function reportRun(plan: ImportPlan, file: string, ctx: CommandContext, result: ImportResult): Promise<void> {
  const {failures, not_settled: notSettled, awaiting, ...counts} = result
  const summary = {file, journal: plan.journalPath, batch_id: plan.batchId, rows: plan.rowCount, ...counts, failures, not_settled: notSettled}
  await ctx.out.resource(summary, SUMMARY_COLUMNS)
  // Machine formats carry the failures inside the summary; a table lists them below it.
  if (!ctx.out.machine && failures.length) {
    ctx.out.note('')
    await ctx.out.list(failures, FAILURE_COLUMNS)
  }
  describeUnsettled(ctx, result)
  const moved = Object.keys(result.total_this_run).length ? `${describeTotals(result.total_this_run)} moved by this run` : 'nothing moved by this run'
  if (result.interrupted) {
    throw new PartialError(`Interrupted: ${plan.rowCount - result.not_sent - result.failed - result.partial} of ${plan.rowCount} rows done, ${result.not_sent} not sent (${moved}); re-run the same command to finish.`)
  }
  const parts: string[] = []
  if (result.failed > 0) {
    const lost = failures.filter((f) => f.outcome_unknown).length
    const unknown = lost ? `; the answer to ${lost === result.failed ? (lost === 1 ? 'it' : 'all of them') : lost} was lost, so ${lost === 1 ? 'its move' : 'their moves'} may have been made (${describeTotals(result.total_unknown)}): the re-run finds out, never making a second move` : ''
    parts.push(`${result.failed} of ${plan.rowCount} rows failed (see the journal ${plan.journalPath}); re-run to retry them with the same keys${unknown}`)
  }
  if (result.partial > 0) parts.push(`${result.partial} of ${plan.rowCount} rows did not settle (${describeTotals(result.total_not_settled)}, named above); ${moved}`)
  // Rows recorded as awaiting approval whose moves this machine has since seen canceled or failed.
  const waiting = plan.store.awaitingMoves()
  const ended = endedMoves(ctx.configDir, keyIdOf(ctx.profile.apiKey), waiting.map((w) => w.move_id))
  const gone = waiting.filter((w) => ended.has(w.move_id) && ended.get(w.move_id) !== 'approved').map((w) => w.line)
  if (gone.length) parts.push(`${plural(gone.length, 'row')} recorded as awaiting approval (line${gone.length === 1 ? '' : 's'} ${describeLines(gone)}) ${gone.length === 1 ? 'has its move' : 'have their moves'} canceled or failed since (this machine's audit trail): ${gone.length === 1 ? 'it moves' : 'they move'} no money; to pay ${gone.length === 1 ? 'it' : 'them'}, import again with --new-batch or create the moves anew`)
  const stuck = waiting.filter((w) => ended.get(w.move_id) === 'approved').map((w) => w.line)
  if (stuck.length) parts.push(`${plural(stuck.length, 'row')} recorded as awaiting approval (line${stuck.length === 1 ? '' : 's'} ${describeLines(stuck)}) ${stuck.length === 1 ? 'has its move' : 'have their moves'} approved since, and not settled (this machine's audit trail): ${stuck.length === 1 ? 'its settlement' : 'their settlements'} failed and nothing moved; ${STUCK_APPROVED}`)
  const unsure = inDoubt(ctx, waiting.filter((w) => !ended.has(w.move_id)))
  if (unsure) parts.push(unsure)
  if (parts.length) throw new PartialError(`${parts.join('. ')}.`)
}


/**
 * Names the rows whose moves exist but moved nothing: not settled (approval or settlement
 * failed) with what can settle each, and those created awaiting approval (auto_approve=false).
 */
function describeUnsettled(ctx: CommandContext, r: ImportResult): void {
  const byStatus = new Map<string, RowMove[]>()
  for (const n of r.not_settled) byStatus.set(n.status, byStatus.get(n.status) ?? []).get(n.status)!.push(n)
  const rows = (list: RowMove[], n = list.length, given?: Record<string, number>) => {
    const t: Record<string, number> = {}
    if (!given) for (const m of list) t[m.currency] = (t[m.currency] ?? 0) + m.amount_in_minor_units
    const ids = `${list.slice(0, 5).map((m) => m.move_id).join(', ')}${n > 5 ? ', …' : ''}`
    return `(${describeTotals(given ?? t)}): line${n === 1 ? '' : 's'} ${describeLines(list.map((m) => m.line))}${n > list.length ? ' and more' : ''} (move${n === 1 ? '' : 's'} ${ids})`
  }
  for (const [status, list] of byStatus) {
    const what = `${plural(list.length, 'row')} ${status === 'created' ? 'created, not approved' : `${status}, not settled`} ${rows(list)}. They moved nothing`
    if (status === 'approved') {
      ctx.out.note(`${what}: their settlement failed at the service. payops cannot settle an approved move: the interface continues only a created move on a replay (a re-run sends these rows again with their keys only to read where their moves stand), and \`payops moves approve\` approves only created moves (400). The service settles or fails them; a re-run reports what it then finds.`)
    } else if (status === 'created') ctx.out.note(`${what}. A re-run continues them (a replay of a created move approves and settles it), as does \`payops moves approve ID\`.`)
    else ctx.out.note(`${what}; a re-run sends them again with their keys and reports where they stand.`)
  }
  const n = r.awaiting_approval
  if (!n) return
  // Under maker-checker its maker's own approval is refused: a checker approves them.
  const checker = ctx.profile.limitSets.find((s) => s.limits.approval)?.profile
  const who = checker
    ? `maker-checker (profile "${checker}") leaves ${n === 1 ? 'it' : 'them'} to another operator: a checker approves ${n === 1 ? 'it' : 'them'} with \`payops approvals\`, or with \`payops approvals review FILE\` from \`payops approvals request ID --out FILE\``
    : '`payops approvals`, or `payops moves approve ID`'
  ctx.out.note(`${plural(n, 'row')} created, awaiting approval ${rows(r.awaiting, n, r.total_awaiting_approval)}. Nothing moved for ${n === 1 ? 'it' : 'them'} until approved: ${who}.`)
}

/** The rows to send that maker-checker will hold (created without auto-approval though they ask for it), by line. */
function heldRows(ctx: CommandContext, rows: Iterable<PlannedRow>): {profile: string; lines: number[]} {
  const out = {profile: '', lines: [] as number[]}
  if (!ctx.profile.limitSets.some((s) => s.limits.approval)) return out
  for (const r of rows) {
    if (r.auto_approve === false) continue
    const profile = makerCheckerFor(ctx.profile.limitSets, r.amount_in_minor_units, r.currency)
    if (!profile) continue
    out.profile ||= profile
    out.lines.push(r.line)
  }
  return out
}

function heldLine(held: {profile: string; lines: number[]}, dryRun: boolean): string {
  const n = held.lines.length
  const them = n === 1 ? 'it' : 'them'
  return `${plural(n, 'row')} (line${n === 1 ? '' : 's'} ${describeLines(held.lines)}) ${dryRun ? 'would be' : 'will be'} held by maker-checker (profile "${held.profile}"): created without auto-approval, awaiting approval by another operator; nothing moves for ${them} until a checker approves ${them}.`
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

/** The whole file against the daily caps, before the first row (rows already sent today are in the audit trail). */
function enforceDailyCap(ctx: CommandContext, opts: ImportOptions, totals: Record<string, number>): void {
  const v = dailyCapReport(ctx, totals)
  for (const line of v) ctx.out.note(line)
  if (v.length && !opts.guard['override-limits']) throw new NotConfirmedError(`The import breaks the daily cap: ${v[0]}. Nothing was sent (--override-limits overrides it after confirmation).`)
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
