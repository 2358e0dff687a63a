/**
 * Maker-checker across machines: `approvals request ID --out FILE` writes what is to be approved
 * (its details, who created it, the hash of the creating audit record), and `approvals review
 * FILE` on the checker's machine shows it, re-reads what the API can show, asks for the amount to
 * be typed and approves it through the movement pipeline, recording both identities.
 */
import {closeSync, existsSync, openSync, readFileSync, statSync, writeSync} from 'node:fs'
import * as z from 'zod/mini'
import {PATHS} from '../api/paths.js'
import {keyIdOf} from '../api/redact.js'
import {readAudit} from '../audit/index.js'
import {currentOperator, describeOperator, sameOperator} from '../config/identity.js'
import type {CommandContext} from '../context/index.js'
import {ConflictError, LocalNotFoundError, NotConfirmedError, UsageError} from '../errors.js'
import {isSymlink} from '../files.js'
import {formatMoney} from '../money.js'
import {madeWith, pendingMovesOf} from './approvals.js'
import {runBatch, type GuardFlags} from './command.js'
import {auditHistory} from './history.js'
import type {ApprovalRequest as StoreRequest} from '../control/types.js'
import {describeRequest, differences, recordRequest, teamContext, refuseContradiction, refuseMaker, remember, requestFor, resourceOf, withTeamStore} from './team-approvals.js'

/** A request file is small: anything larger is not one. */
const MAX_REQUEST_BYTES = 64 * 1024

const OperatorSchema = z.object({operator: z.nullable(z.string().check(z.maxLength(100))), os_user: z.string().check(z.maxLength(256)), host: z.string().check(z.maxLength(256))})

export const ApprovalRequest = z.object({
  payops_approval_request: z.literal(1),
  kind: z.enum(['move', 'transfer']),
  id: z.string().check(z.minLength(1), z.maxLength(100)),
  amount_in_minor_units: z.int().check(z.positive()),
  currency_code: z.string().check(z.regex(/^[A-Z]{3}$/)),
  from: z.nullable(z.string().check(z.maxLength(100))),
  to: z.string().check(z.maxLength(100)),
  created_by: OperatorSchema,
  created_at: z.nullable(z.string().check(z.maxLength(40))),
  audit_record: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  requested_by: OperatorSchema,
  requested_at: z.string().check(z.maxLength(40)),
  /** With a team store: the database role that requested it (the store's maker). */
  maker: z.optional(z.string().check(z.maxLength(100))),
})
export type ApprovalRequest = z.infer<typeof ApprovalRequest>

/**
 * `approvals request ID [--out FILE]`: with a team store the request goes in the store (maker: the
 * role that logged in), and the file, when asked for, is an export of it for a machine without the
 * store; without one, the file is the request.
 */
export async function requestApproval(ctx: CommandContext, id: string, out: string | undefined): Promise<ApprovalRequest> {
  const request = await approvalRequestOf(ctx, id)
  const stored = await withTeamStore(ctx, async (store) => ({r: await recordRequest(store, request.kind, id, {...request}), where: store.location}))
  if (stored) {
    request.maker = stored.r.maker
    ctx.out.note(`The approval request for ${describeRequest(stored.r)} is in the team store ${stored.where} (requested by ${stored.r.maker}); any other member approves it with \`payops approvals review ${id}\`.`)
  } else if (!out) {
    throw new UsageError('No team store is bound to this key: give --out FILE to write the request for a checker elsewhere.')
  }
  if (out) {
    writeRequestFile(request, out)
    ctx.out.note(`Wrote the approval request for ${request.kind === 'move' ? 'move' : 'account transfer'} ${request.id} to ${out}; the checker runs \`payops approvals review ${out}\`.`)
  }
  return request
}

/** The approval request of a move or transfer this machine created with the key in use. */
async function approvalRequestOf(ctx: CommandContext, id: string): Promise<ApprovalRequest> {
  const history = auditHistory(ctx.configDir, keyIdOf(ctx.profile.apiKey))
  const known = history.byResource(id)
  if (!known || known.amount_in_minor_units == null || !known.currency_code || !known.to || !known.created_by || !known.created_record) {
    throw new LocalNotFoundError(`${id} is not a move or transfer this machine created with the key in use (its audit trail has no record of its creation): only the machine that created it can write its approval request.`)
  }
  const records = readAudit(ctx.configDir)
  const creation = records.find((r) => r.hash === known.created_record)
  const kind = creation?.path === PATHS.moveCreate ? 'move' : 'transfer'
  if (kind === 'move' && !pendingMovesOf(records.filter(madeWith(ctx.profile.apiKey, ctx.profile.profileName ?? null, ctx.profile.mode))).some((m) => m.id === id)) {
    throw new UsageError(`Move ${id} does not await approval any more (this machine's audit trail shows it approved, settled or canceled); there is nothing to request.`)
  }
  if (kind === 'transfer') await (await ctx.api(['transfers'])).transfers.pendingForApproval(id)
  const request: ApprovalRequest = {
    payops_approval_request: 1,
    kind,
    id,
    amount_in_minor_units: known.amount_in_minor_units,
    currency_code: known.currency_code.toUpperCase(),
    from: known.from ?? null,
    to: known.to,
    created_by: known.created_by,
    created_at: creation?.time ?? null,
    audit_record: known.created_record,
    requested_by: currentOperator(ctx.profile.profile?.operator_name),
    requested_at: new Date(ctx.clock.now()).toISOString(),
  }
  return request
}

/** Writes a request file: 0600, never over another file nor through a link. */
function writeRequestFile(request: ApprovalRequest, out: string): void {
  if (isSymlink(out)) throw new UsageError(`${out} is a symbolic link; write the request to a plain file.`)
  let fd: number
  try {
    fd = openSync(out, 'wx', 0o600)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(code === 'EEXIST' ? `${out} already exists; choose another file (a request is never written over another).` : `Cannot write ${out}: ${(err as Error).message}`)
  }
  try {
    writeSync(fd, JSON.stringify(request, null, 2) + '\n')
  } finally {
    closeSync(fd)
  }
}

/** Reads and checks a request file: bounded, never through a symlink, exactly the documented shape. */
export function readApprovalRequest(file: string): ApprovalRequest {
  if (isSymlink(file)) throw new UsageError(`${file} is a symbolic link; payops reads approval requests only from plain files.`)
  let size: number
  try {
    size = statSync(file).size
  } catch (err) {
    throw new UsageError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`)
  }
  if (size > MAX_REQUEST_BYTES) throw new UsageError(`${file} is ${size} bytes: not an approval request (at most ${MAX_REQUEST_BYTES}).`)
  let data: unknown
  try {
    data = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    throw new UsageError(`${file} is not JSON: not an approval request written by \`payops approvals request\`.`)
  }
  const parsed = ApprovalRequest.safeParse(data)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new UsageError(`${file} is not a valid approval request: ${issue.path.join('.') || '(top level)'}: ${issue.message}.`)
  }
  return parsed.data
}

/**
 * Shows the request, refuses its maker as checker, re-reads what the API can show (a transfer from
 * the list of those awaiting approval, which must match; a move's subaccounts, since the API cannot
 * show one move), then approves through the pipeline, which asks for the amount to be typed.
 */
export async function reviewApprovalRequest(ctx: CommandContext, arg: string, flags: GuardFlags): Promise<void> {
  const isFile = existsSync(arg) || isSymlink(arg)
  // `req-N`: a member's money request in the team store (approved there; the worker sends it).
  if (!isFile && /^req-\d+$/.test(arg)) return (await import('../team/review.js')).reviewMoneyRequest(ctx, await teamContext(ctx), arg, flags)
  const fromFile = isFile ? readApprovalRequest(arg) : undefined
  const team = await withTeamStore(ctx, async (store) => ({all: await store.approvals(), me: (await store.status()).actor, where: store.location}))
  if (team) remember(ctx, team.all)
  const stored = team && requestFor(team.all, fromFile?.id ?? arg)
  if (team && stored) {
    // The store's record stands: a file that contradicts it is refused, one that agrees adds nothing.
    if (fromFile) refuseContradiction(stored, fromFile, arg)
    return reviewStored(ctx, stored, team, flags)
  }
  if (team && !fromFile) throw new LocalNotFoundError(`The team store ${team.where} holds no approval request for ${arg} (the maker puts one there with \`payops approvals request ${arg}\`).`)
  return reviewFile(ctx, fromFile ?? readApprovalRequest(arg), flags)
}

/** Reviews a request the team store holds: identity is the database role, the API's state is checked against the store's record. */
async function reviewStored(ctx: CommandContext, r: StoreRequest, team: {me: string; where: string}, flags: GuardFlags): Promise<void> {
  const id = resourceOf(r)
  const noun = r.kind === 'move' ? 'move' : 'account transfer'
  const from = typeof r.detail.from === 'string' ? r.detail.from : null
  ctx.out.note([
    `Approval request ${r.id} in the team store ${team.where}: ${noun} ${id}`,
    `  amount:     ${formatMoney(r.amount, r.currency)}`,
    `  from:       ${from ?? '(unknown)'}`,
    `  to:         ${r.destination ?? '(unknown)'}`,
    `  requested:  by ${r.maker} at ${r.at}`,
    ...(r.decision ? [`  decided:    ${r.decision.decision} by ${r.decision.checker} at ${r.decision.at}`] : []),
  ])
  if (r.decision) throw new ConflictError(`The team store shows ${noun} ${id} already ${r.decision.decision} by ${r.decision.checker}: there is nothing to review. Nothing was sent.`, id, null)
  refuseMaker(r, team.me, team.where)
  const api = await ctx.api(['subaccounts', 'transfers'])
  if (r.kind === 'transfer') {
    const t = await api.transfers.pendingForApproval(id)
    const differs = differences(r, {...t})
    if (differs.length) throw new NotConfirmedError(`Account transfer ${id} is not what the team store's request says: ${differs.join('; ')}. Nothing was sent.`)
  } else {
    for (const sub of [from, r.destination]) if (sub) ctx.names.remember(sub, (await api.subaccounts.get(sub)).data.name, 'subaccount')
  }
  const known = {id, amount_in_minor_units: r.amount, currency_code: r.currency, from, to: r.destination}
  const request = r.kind === 'move' ? {kind: 'move.approve' as const, id, known, maker: r.maker} : {kind: 'transfer.approve' as const, id, known, maker: r.maker}
  await runBatch(ctx, flags, [request], {action: `Approve ${noun} ${id} requested by ${r.maker}`}, 'approve')
}

/** Reviews a request file (no team store, or one that holds no record of it). */
async function reviewFile(ctx: CommandContext, req: ApprovalRequest, flags: GuardFlags): Promise<void> {
  const me = currentOperator(ctx.profile.profile?.operator_name)
  const amount = formatMoney(req.amount_in_minor_units, req.currency_code)
  const noun = req.kind === 'move' ? 'move' : 'account transfer'
  ctx.out.note(
    [
      `Approval request: ${noun} ${req.id}`,
      `  amount:     ${amount}`,
      `  from:       ${req.from ?? '(unknown)'}`,
      `  to:         ${req.to}`,
      `  created by: ${describeOperator(req.created_by)}${req.created_at ? ` at ${req.created_at}` : ''}`,
      `  record:     ${req.audit_record}`,
      `  requested:  by ${describeOperator(req.requested_by)} at ${req.requested_at}`,
    ],
  )
  if (sameOperator(req.created_by, me)) {
    throw new NotConfirmedError(`maker-checker: ${noun} ${req.id} was created by ${describeOperator(req.created_by)}, who cannot also approve it. Nothing was sent.`)
  }
  const api = await ctx.api(['subaccounts', 'transfers'])
  if (req.kind === 'transfer') {
    const t = await api.transfers.pendingForApproval(req.id)
    const differs = t.amount_in_minor_units !== req.amount_in_minor_units || t.currency_code.toUpperCase() !== req.currency_code || t.to_account_id !== req.to || (req.from !== null && t.from_account_id !== req.from)
    if (differs) {
      throw new NotConfirmedError(
        `Account transfer ${req.id} is now ${formatMoney(t.amount_in_minor_units, t.currency_code)} ${t.from_account_id} → ${t.to_account_id}, not what the request says (${amount} ${req.from} → ${req.to}). Nothing was sent.`,
      )
    }
  } else {
    // The API cannot show one move: the subaccounts it names must exist for this key.
    for (const id of [req.from, req.to]) if (id) ctx.names.remember(id, (await api.subaccounts.get(id)).data.name, 'subaccount')
  }
  const known = {id: req.id, amount_in_minor_units: req.amount_in_minor_units, currency_code: req.currency_code, from: req.from, to: req.to, created_by: req.created_by}
  const maker = describeOperator(req.created_by)
  const request = req.kind === 'move' ? {kind: 'move.approve' as const, id: req.id, known, maker} : {kind: 'transfer.approve' as const, id: req.id, known, maker}
  await runBatch(ctx, flags, [request], {action: `Approve ${noun} ${req.id} created by ${maker}`}, 'approve')
}
