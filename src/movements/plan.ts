/**
 * Planning: turns a movement request into the exact request to send and what the guard shows and
 * checks. Amounts are parsed exactly in the source's own currency (a differing currency is
 * refused), names are resolved for the summary, and approvals of moves take their amount from
 * this machine's audit trail (the API has no way to read one move).
 */
import {AuthError, ConflictError, UsageError} from '../errors.js'
import {formatMoney, normalizeCurrency, parseAmount, parseMinorUnits, toDecimalString} from '../money.js'
import {validateMoveCreate} from '../api/moves.js'
import {KEY_METADATA, validateTransferCreate} from '../api/transfers.js'
import {validateSimulateCredit} from '../api/treasury.js'
import {hasLimits} from './guard.js'
import {settleCommand} from './settle.js'
import type {AmountInput, Described, Known, MovementPorts, MovementRequest, Plan} from './types.js'
import {movementDetails} from './history.js'
import {makerCheckerFor, refuseOwnApproval} from './maker-checker.js'
import {describe} from './sentence.js'
import {searchCredits, searchTransfers} from './search.js'
import {systemClock} from '../context/host.js'
import {recordedPath} from '../api/paths.js'

/** The pipeline records its own audit, and is the one sender allowed to reach a money endpoint. */
const skipAudit = {skipAudit: true, movement: true}


/** What the confirmation says of --send-anyway: the earlier attempt with this key may have taken effect. */
function anywayRisk(r: {sendAnyway?: boolean; idempotencyKey?: string}): string | undefined {
  if (!r.sendAnyway || r.idempotencyKey === undefined) return undefined
  return `--send-anyway: if an earlier attempt with key ${r.idempotencyKey} took effect, this is a second one`
}

/** A LIVE key or limits: the guard needs amounts, destinations and names. */
export function needsDetails(ports: MovementPorts): boolean {
  return ports.profile.live || hasLimits(ports) || Boolean(ports.team)
}

/** The amount as far as it can be read before the source's currency is known: a malformed one fails before any request. */
function earlyMinor(amount: AmountInput, asserted: string | undefined): number {
  return minorOf(amount, asserted?.trim() ? normalizeCurrency(asserted) : 'USD')
}

function minorOf(amount: AmountInput, currency: string): number {
  return 'decimal' in amount ? parseAmount(amount.decimal, currency) : parseMinorUnits(amount.minor)
}

function checkAsserted(asserted: string | undefined, actual: string, what: string): void {
  if (asserted === undefined) return
  if (asserted.trim() === '') throw new UsageError('--currency is empty.')
  const want = normalizeCurrency(asserted)
  if (want !== actual) throw new UsageError(`--currency ${want} does not match the ${what}'s currency ${actual}; nothing was sent.`)
}

const label = (id: string, name?: string | null) => (name ? `${name} (${id})` : id)
/** An id with the name the book of names knows for it (no request). */
const knownName = (ports: MovementPorts, id: string | null | undefined) => (id ? label(id, ports.names?.get(id)) : undefined)

function describeKnown(k: Known | undefined): string | undefined {
  if (!k || k.amount_in_minor_units == null || !k.currency_code) return undefined
  return formatMoney(k.amount_in_minor_units, k.currency_code)
}

/**
 * A key this machine's audit trail knows for another movement (route, amount, currency or
 * metadata) is refused before anything is sent: the service would answer with the first movement,
 * or refuse, and either way this request would not be carried out.
 */
function refuseReusedKey(ports: MovementPorts, noun: Plan['noun'], key: string, details: string, asked: Described): void {
  const claim = ports.history.claimOf(key)
  if (!claim) return
  const same = claim.details
    ? claim.details === details
    : claim.to === asked.to && (claim.from == null || claim.from === asked.from) && claim.amount_in_minor_units === asked.amount_in_minor_units
  if (same) return
  const what = claim.amount_in_minor_units != null ? describe({from: claim.from ?? undefined, to: claim.to ?? undefined, amount_in_minor_units: claim.amount_in_minor_units, currency_code: claim.currency_code ?? undefined}, claim.currency_code) : 'another request'
  const sameRoute = claim.details && claim.to === asked.to && claim.from === asked.from && claim.amount_in_minor_units === asked.amount_in_minor_units
  const other = sameRoute ? (noun === 'move' ? ', other metadata' : ', another rail or metadata') : ''
  throw new ConflictError(
    `Idempotency-Key ${key} was used on this machine for ${claim.id ? `${noun} ${claim.id}` : `a ${noun} whose outcome is unknown`} (${what}${other}); this request (${describe(asked, asked.currency_code)}) was not sent. Use a new key for a new ${noun}.`,
    claim.id ?? '',
    key,
  )
}

/**
 * A create the maker-checker policy covers is made without auto-approval: `heldBy` names the
 * profile of the policy (the operator is told once the movement exists, never before).
 */
function holdIfMakerChecker(ports: MovementPorts, autoApprove: boolean, minor: number, currency: string): {autoApprove: boolean; heldBy?: string} {
  if (!autoApprove) return {autoApprove: false}
  const profile = makerCheckerFor(ports.profile.limitSets, minor, currency)
  return profile ? {autoApprove: false, heldBy: profile} : {autoApprove: true}
}

async function planMoveCreate(r: Extract<MovementRequest, {kind: 'move.create'}>, ports: MovementPorts): Promise<Plan> {
  // A malformed amount or body fails before any request.
  const early = earlyMinor(r.amount, r.currency)
  validateMoveCreate({from_subaccount_id: r.from, to_subaccount_id: r.to, amount_in_minor_units: early, auto_approve: r.autoApprove, client_metadata: r.metadata})
  let currency = r.sourceCurrency?.toUpperCase()
  let fromName: string | undefined
  if (!currency) {
    const source = (await ports.api.subaccounts.get(r.from)).data
    currency = source.currency_code?.toUpperCase() ?? undefined
    fromName = source.name
    ports.names?.remember(source.id, source.name)
    if (!currency) {
      if (r.currency === undefined) {
        throw new UsageError(`The currency of source subaccount ${r.from} is not known (the API did not return one); pass --currency to say which currency the amount is in.`)
      }
      currency = normalizeCurrency(r.currency)
    }
  }
  checkAsserted(r.currency, currency, 'source subaccount')
  const minor = minorOf(r.amount, currency)
  let toName: string | undefined
  // A caller that knows the source's currency checked source and destination already (import).
  if (needsDetails(ports) && !r.sourceCurrency) {
    toName = (await ports.api.subaccounts.get(r.to)).data.name
    ports.names?.remember(r.to, toName)
  }
  const key = r.idempotencyKey ?? ports.newKey()
  const amount = formatMoney(minor, currency)
  const {autoApprove, heldBy} = holdIfMakerChecker(ports, r.autoApprove, minor, currency)
  const input = {from_subaccount_id: r.from, to_subaccount_id: r.to, amount_in_minor_units: minor, auto_approve: autoApprove, client_metadata: r.metadata}
  const details = movementDetails({from: r.from, to: r.to, amount_in_minor_units: minor, currency_code: currency, metadata: r.metadata})
  if (r.idempotencyKey !== undefined) refuseReusedKey(ports, 'move', key, details, {from: r.from, to: r.to, amount_in_minor_units: minor, currency_code: currency})
  return {
    request: r,
    noun: 'move',
    summary: {action: `Move ${amount}${autoApprove ? '' : ' (created, not approved)'}`, amount, from: label(r.from, fromName), to: label(r.to, toName)},
    checks: [{amount_in_minor_units: minor, currency, to: r.to}],
    typed: toDecimalString(minor, currency),
    idempotencyKey: key,
    keyGenerated: r.idempotencyKey === undefined,
    audit: {method: 'POST', path: recordedPath('moveCreate'), details, amount_in_minor_units: minor, currency_code: currency, from: r.from, to: r.to},
    expected: {from: r.from, to: r.to, amount_in_minor_units: minor, currency_code: currency},
    currency,
    autoApprove,
    heldBy,
    settle: settleCommand(r, {key, minor, currency, now: systemClock.now()}),
    send: () => ports.api.moves.create(input, key, skipAudit),
  }
}

function planMoveApprove(r: Extract<MovementRequest, {kind: 'move.approve'}>, ports: MovementPorts): Plan {
  const recorded = r.known ?? ports.history.byResource(r.id)
  refuseOwnApproval(ports.profile.limitSets, recorded, ports.profile.operator, 'move', r.id)
  // A review file states what is approved: the typed confirmation shows its amount.
  const known = needsDetails(ports) || r.known ? recorded : undefined
  const amount = describeKnown(known)
  const base = {
    recorded,
    request: r,
    noun: 'move' as const,
    // A checker's review always confirms by typing, on a test key too.
    ...(r.maker !== undefined && {evenOnTest: true, alwaysTyped: true}),
    idempotencyKey: null,
    keyGenerated: false,
    currency: known?.currency_code ?? null,
    settle: settleCommand(r, {key: null, now: systemClock.now()}),
    send: () => ports.api.moves.approve(r.id, skipAudit),
    audit: {method: 'POST', maker: r.maker ?? null, path: recordedPath('moveApprove', {move_id: r.id}), amount_in_minor_units: known?.amount_in_minor_units ?? null, currency_code: known?.currency_code ?? null, from: known?.from ?? null, to: known?.to ?? null},
  }
  if (amount && known?.to) {
    return {
      ...base,
      summary: {action: `Approve and settle move ${r.id}`, amount, from: knownName(ports, known.from), to: knownName(ports, known.to)},
      checks: [{amount_in_minor_units: known.amount_in_minor_units!, currency: known.currency_code!, to: known.to, label: `move ${r.id}`}],
      typed: toDecimalString(known.amount_in_minor_units!, known.currency_code!),
    }
  }
  return {
    ...base,
    summary: {action: `Approve and settle move ${r.id}`},
    checks: [],
    typed: r.id.slice(-6),
    unknown: needsDetails(ports) ? `the amount and destination of move ${r.id} are unknown to this machine (it was not created from here, and the API cannot show one move)` : undefined,
  }
}

function planMoveCancel(r: Extract<MovementRequest, {kind: 'move.cancel'}>, ports: MovementPorts): Plan {
  const known = ports.profile.live ? ports.history.byResource(r.id) : undefined
  return {
    request: r,
    noun: 'move',
    summary: {action: `Cancel move ${r.id}`, amount: describeKnown(known), from: knownName(ports, known?.from), to: knownName(ports, known?.to)},
    checks: [],
    plainConfirm: true,
    idempotencyKey: null,
    keyGenerated: false,
    currency: known?.currency_code ?? null,
    settle: settleCommand(r, {key: null, now: systemClock.now()}),
    audit: {method: 'DELETE', path: recordedPath('moveCancel', {move_id: r.id}), amount_in_minor_units: known?.amount_in_minor_units ?? null, currency_code: known?.currency_code ?? null, from: known?.from ?? null, to: known?.to ?? null},
    send: () => ports.api.moves.cancel(r.id, skipAudit) as ReturnType<Plan['send']>,
  }
}

async function planTransferCreate(r: Extract<MovementRequest, {kind: 'transfer.create'}>, ports: MovementPorts): Promise<Plan> {
  if (r.currency.trim() === '') throw new UsageError('--currency is empty.')
  const currency = normalizeCurrency(r.currency)
  const minor = minorOf(r.amount, currency)
  const key = r.idempotencyKey ?? ports.newKey()
  const amount = formatMoney(minor, currency)
  // The key travels in client_metadata too: the spec promises no idempotency for a transfer's
  // create, so after a lost answer the transfer is looked for in the list by this entry.
  const own = r.metadata?.[KEY_METADATA]
  if (own !== undefined && own !== key) {
    throw new UsageError(`client_metadata.${KEY_METADATA} is payops' own entry (it carries the Idempotency-Key, here ${key}); use another metadata key, or give the key with --idempotency-key.`)
  }
  const {autoApprove, heldBy} = holdIfMakerChecker(ports, r.autoApprove, minor, currency)
  const input = {
    from_account_id: r.from,
    to_account_id: r.to,
    amount_in_minor_units: minor,
    currency_code: currency,
    rail: r.rail,
    auto_approve: autoApprove,
    scheduled_date: r.scheduledDate,
    client_metadata: {...r.metadata, [KEY_METADATA]: key},
  }
  validateTransferCreate(input)
  const details = movementDetails({from: r.from, to: r.to, amount_in_minor_units: minor, currency_code: currency, rail: r.rail, metadata: r.metadata})
  if (r.idempotencyKey !== undefined) refuseReusedKey(ports, 'account transfer', key, details, {from: r.from, to: r.to, amount_in_minor_units: minor, currency_code: currency, rail: r.rail})
  // A currency other than the source account's is refused before sending, as for moves (read from
  // the account list; an account the list does not show is left to the API to refuse).
  const source = await ports.api.treasury.findAccount(r.from)
  if (source?.currency_code) checkAsserted(currency, source.currency_code.toUpperCase(), 'source account')
  return {
    request: r,
    noun: 'account transfer',
    summary: {action: `Transfer ${amount} by ${r.rail}${autoApprove ? '' : ' (created, not approved)'}`, amount, from: knownName(ports, r.from), to: knownName(ports, r.to), details: {rail: r.rail, scheduled: r.scheduledDate, risk: anywayRisk(r)}},
    checks: [{amount_in_minor_units: minor, currency, to: r.to}],
    typed: toDecimalString(minor, currency),
    idempotencyKey: key,
    keyGenerated: r.idempotencyKey === undefined,
    audit: {method: 'POST', path: recordedPath('transferCreate'), details, amount_in_minor_units: minor, currency_code: currency, from: r.from, to: r.to, ...(r.scheduledDate ? {scheduled_date: r.scheduledDate} : {})},
    expected: {from: r.from, to: r.to, amount_in_minor_units: minor, currency_code: currency, rail: r.rail},
    currency,
    autoApprove,
    heldBy,
    settle: settleCommand(r, {key, minor, currency, now: systemClock.now()}),
    // Before sending (a key the operator gave may name an earlier run's transfer): the source
    // account's transfers; around a lost answer: those of this amount created then (search.ts).
    search: async (around) => {
      if (around) return searchTransfers(ports.api, r, key, minor, currency, around)
      return {found: (await ports.api.transfers.findByKey(key, r.from)) as Record<string, unknown> | undefined, candidates: []}
    },
    sendAnyway: r.sendAnyway,
    send: () => ports.api.transfers.create(input, key, skipAudit),
  }
}

async function planTransferApprove(r: Extract<MovementRequest, {kind: 'transfer.approve'}>, ports: MovementPorts): Promise<Plan> {
  const base = {
    request: r,
    noun: 'account transfer' as const,
    ...(r.maker !== undefined && {evenOnTest: true, alwaysTyped: true}),
    idempotencyKey: null,
    keyGenerated: false,
    settle: settleCommand(r, {key: null, now: systemClock.now()}),
    send: () => ports.api.transfers.approve(r.id, skipAudit),
  }
  if (!needsDetails(ports)) {
    const known = r.known ?? ports.history.byResource(r.id)
    return {
      ...base,
      summary: {action: `Approve account transfer ${r.id}`},
      checks: [],
      currency: known?.currency_code ?? null,
      audit: {method: 'POST', maker: r.maker ?? null, path: recordedPath('transferApprove', {account_transfer_id: r.id}), amount_in_minor_units: known?.amount_in_minor_units ?? null, currency_code: known?.currency_code ?? null, from: known?.from ?? null, to: known?.to ?? null},
    }
  }
  // Transfers awaiting approval can be read from the documented list (status=created).
  const t = await ports.api.transfers.pendingForApproval(r.id)
  const recorded = r.known ?? ports.history.byResource(t.id)
  refuseOwnApproval(ports.profile.limitSets, {...recorded, amount_in_minor_units: t.amount_in_minor_units, currency_code: t.currency_code}, ports.profile.operator, 'account transfer', t.id)
  const amount = formatMoney(t.amount_in_minor_units, t.currency_code)
  return {
    ...base,
    summary: {action: `Approve account transfer ${t.id}: ${amount} by ${t.rail}`, amount, from: knownName(ports, t.from_account_id), to: knownName(ports, t.to_account_id)},
    checks: [{amount_in_minor_units: t.amount_in_minor_units, currency: t.currency_code, to: t.to_account_id, label: `transfer ${t.id}`}],
    typed: toDecimalString(t.amount_in_minor_units, t.currency_code),
    currency: t.currency_code,
    audit: {method: 'POST', maker: r.maker ?? null, path: recordedPath('transferApprove', {account_transfer_id: r.id}), amount_in_minor_units: t.amount_in_minor_units, currency_code: t.currency_code, from: t.from_account_id, to: t.to_account_id},
  }
}

async function planCredit(r: Extract<MovementRequest, {kind: 'credit.simulate'}>, ports: MovementPorts): Promise<Plan> {
  if (ports.profile.live) {
    throw new AuthError('Refusing: treasury simulate-credit is a sandbox operation and this is a LIVE (live_) key. Use a test_ key. Nothing was sent.')
  }
  const early = earlyMinor(r.amount, r.currency)
  validateSimulateCredit({rail: r.rail, amount_in_minor_units: early, transaction_date: r.transactionDate, sender_info: r.senderInfo, subaccount_id: r.subaccount})
  const flags = {amount: 'decimal' in r.amount ? r.amount.decimal : undefined, currency: r.currency}
  const {minor, currency} = await ports.api.treasury.resolveAmount(r.account, flags, (fallback) => {
    const cur = normalizeCurrency(r.currency ?? fallback ?? 'USD')
    return {minor: minorOf(r.amount, cur), currency: cur}
  })
  const key = r.idempotencyKey ?? ports.newKey()
  const amount = formatMoney(minor, currency)
  const to = r.subaccount ?? r.account
  const input = {rail: r.rail, amount_in_minor_units: minor, transaction_date: r.transactionDate, sender_info: r.senderInfo, subaccount_id: r.subaccount}
  return {
    request: r,
    noun: 'simulated credit',
    summary: {action: `Simulate an inbound ${r.rail} credit of ${amount}`, amount, to: r.subaccount ? `subaccount ${r.subaccount} of account ${r.account}` : r.account, details: {risk: anywayRisk(r)}},
    checks: [{amount_in_minor_units: minor, currency, to}],
    typed: toDecimalString(minor, currency),
    idempotencyKey: key,
    keyGenerated: r.idempotencyKey === undefined,
    audit: {method: 'POST', path: recordedPath('simulateInboundCredit', {account_id: r.account}), amount_in_minor_units: minor, currency_code: currency, from: null, to},
    expected: {amount_in_minor_units: minor, currency_code: currency},
    currency,
    settle: settleCommand(r, {key, minor, currency, now: systemClock.now()}),
    // A bank line carries nothing of the request: after a lost answer, the credits that could be it.
    search: async (around) => searchCredits(ports.api, r, minor, currency, around ?? {since: systemClock.now()}),
    sendAnyway: r.sendAnyway,
    send: () => ports.api.treasury.simulateCredit(r.account, input, key, skipAudit) as ReturnType<Plan['send']>,
  }
}

export async function plan(r: MovementRequest, ports: MovementPorts): Promise<Plan> {
  switch (r.kind) {
    case 'move.create':
      return planMoveCreate(r, ports)
    case 'move.approve':
      return planMoveApprove(r, ports)
    case 'move.cancel':
      return planMoveCancel(r, ports)
    case 'transfer.create':
      return planTransferCreate(r, ports)
    case 'transfer.approve':
      return planTransferApprove(r, ports)
    case 'credit.simulate':
      return planCredit(r, ports)
  }
}
