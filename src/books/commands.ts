/**
 * The books' commands: `position` (and `position diff`), `report statement`, `reconcile` and
 * `reconcile resolve`. Each reads through its module (position.ts, statement.ts, reconcile.ts,
 * resolve.ts) and renders here: one JSON object, or a table with its notes on stderr.
 */
import type {CommandContext} from '../context/index.js'
import {ExceptionsFound, UsageError} from '../errors.js'
import {formatMoney} from '../money.js'
import {
  DECISION_COLUMNS,
  POSITION_COLUMNS,
  POSITION_DIFF_COLUMNS,
  POSITION_KNOWN,
  POSITION_REPORTING_COLUMN,
  RECONCILE_COLUMNS,
  RECONCILE_FITTED_COLUMNS,
  RECONCILE_KNOWN,
  SCHEDULE_COLUMNS,
  STATEMENT_COLUMNS,
  STATEMENT_KNOWN,
} from './columns.js'
import {parseDay} from './dates.js'
import {toOfx} from './ofx.js'
import {position, positionDiff, positionRows, saveSnapshot, scheduleRows, unreadableLines, type PositionOptions} from './position.js'
import {exceptionsLine, reconcile, summaryLine} from './reconcile.js'
import {resolve, type ResolveOptions} from './resolve.js'
import type {StatementFormat} from './bankfiles/formats.js'
import {statement, statementRows, type StatementOptions} from './statement.js'

export async function runPosition(opts: PositionOptions & {save?: boolean}, ctx: CommandContext): Promise<void> {
  const {out} = ctx
  const p = await position(opts, ctx)
  // A figure payops cannot read exactly is named; every other account is shown.
  for (const line of unreadableLines(p)) out.warn(line)
  if (out.format === 'json') await out.value(p)
  else {
    const cols = p.totals ? [...POSITION_COLUMNS.slice(0, -1), POSITION_REPORTING_COLUMN, POSITION_COLUMNS.at(-1)!] : POSITION_COLUMNS
    await out.list(positionRows(p), cols, POSITION_KNOWN)
    if (out.format === 'table') {
      const schedule = scheduleRows(p)
      out.note(schedule.length ? `Scheduled over the next ${p.horizon_days} days (to ${p.horizon_end}):` : `Nothing scheduled over the next ${p.horizon_days} days.`)
      if (schedule.length) await out.list(schedule, SCHEDULE_COLUMNS)
      if (p.totals) out.note(`Totals in ${p.totals.currency_code} are ${p.totals.note}.`)
    }
  }
  if (opts.save) {
    const id = saveSnapshot(p, ctx, p.totals?.currency_code)
    out.note(`Saved position snapshot ${id} (${p.as_of}); \`payops position diff\` compares with it.`)
  }
}

export async function runPositionDiff(_opts: object, ctx: CommandContext): Promise<void> {
  const {out} = ctx
  const d = await positionDiff(ctx)
  if (out.format === 'json') return out.value(d)
  await out.list(d.changes as unknown as Array<Record<string, unknown>>, POSITION_DIFF_COLUMNS, [...POSITION_DIFF_COLUMNS, {key: 'account_id', header: 'id'}])
  if (out.format === 'table') out.note(`${d.changes.length} change${d.changes.length === 1 ? '' : 's'} since snapshot ${d.snapshot_id} (${d.since}).`)
}

export async function runStatement(opts: StatementOptions & {format?: StatementFormat}, ctx: CommandContext): Promise<void> {
  const {out} = ctx
  const format = opts.format
  if (format !== undefined) out.refuseSelection(`${format === 'ofx' ? 'an OFX' : `a ${format}`} statement`)
  const s = await statement(opts, ctx)
  // The one figure payops cannot read exactly is named; the lines are shown all the same.
  if (s.unreadable && format === undefined) out.warn(`${s.unreadable}.`)
  if (format !== undefined) {
    // A file states its balances: one payops cannot read exactly is refused, never written wrong (writers.ts, ofx.ts).
    // The bank formats' writers load only when one is asked for.
    const write = format === 'ofx' ? toOfx : (await import('./bankfiles/writers.js')).BANK_FILE_WRITERS[format]
    await out.document(write(s, new Date(ctx.clock.now()).toISOString()))
    return
  }
  if (out.format === 'json') return out.value(s)
  await out.list(statementRows(s), STATEMENT_COLUMNS, STATEMENT_KNOWN)
  if (out.format === 'table') {
    const name = s.name ? `${s.name} (${s.id})` : s.id
    const figure = (v: number | null) => (v === null ? 'unreadable' : formatMoney(v, s.currency_code))
    out.note(`${name} ${s.month}${s.complete ? '' : ' (month not over)'}: opening ${figure(s.opening_balance_in_minor_units)}, ${s.lines.length} lines, closing ${figure(s.closing_balance_in_minor_units)}.`)
  }
}

export interface ReconcileCommandOptions {
  account: string
  from?: string
  to?: string
  /** Bank statement files to read the bank lines from instead of the API. */
  statements: string[]
  window: number
  subaccounts: string[]
  hideMatched?: boolean
}

export async function runReconcile(o: ReconcileCommandOptions, ctx: CommandContext): Promise<void> {
  const {out} = ctx
  const paths = o.statements
  // The bank files' readers load only when a file is given.
  const bankFiles = paths.length > 0 ? await import('./bankfiles/reconcile-files.js') : undefined
  const files = bankFiles?.loadStatements(paths) ?? []
  const period = bankFiles?.filesPeriod(files)
  if ((o.from === undefined || o.to === undefined) && period === undefined) {
    throw new UsageError(paths.length > 0 ? 'The statement files have no lines of the account to date the period by: give --from and --to.' : 'Give the period: --from and --to (YYYY-MM-DD).')
  }
  const from = o.from === undefined ? period!.from : parseDay(o.from, '--from')
  const to = o.to === undefined ? period!.to : parseDay(o.to, '--to')
  const opts = {account: o.account, from, to, window: o.window, subaccounts: o.subaccounts, hideMatched: o.hideMatched}
  const fromFiles = bankFiles ? await bankFiles.reconcileStatements(opts, files, paths, ctx) : undefined
  const report = fromFiles ?? (await reconcile(opts, ctx))
  if (out.format === 'json') await out.value(report)
  else {
    // On a terminal the key is the short one (--wide: the whole key); both are what `reconcile resolve` takes.
    await out.list(report.items as unknown as Array<Record<string, unknown>>, out.fitted ? RECONCILE_FITTED_COLUMNS : RECONCILE_COLUMNS, RECONCILE_KNOWN)
    if (out.format === 'table') {
      for (const n of fromFiles ? bankFiles!.fileNotes(fromFiles) : []) out.note(n)
      out.note(summaryLine(report))
    }
  }
  if (report.summary.exceptions > 0) throw new ExceptionsFound(exceptionsLine(report))
}

export async function runResolve(opts: ResolveOptions, ctx: CommandContext): Promise<void> {
  const d = await resolve(opts, ctx)
  const sentence = `${d.replaced ? `Replaced the decision "${d.replaced.label}" on` : 'Resolved'} ${d.key} as "${d.label}"; it no longer counts as an exception.`
  await ctx.out.result({key: d.key, label: d.label, note: d.note, decided_at: d.decided_at, profile: d.profile, decided_by: d.decided_by, replaced: d.replaced?.label ?? null}, DECISION_COLUMNS, sentence)
}
