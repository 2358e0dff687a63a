/**
 * The maker-checker control (`profiles set NAME approval-policy maker-checker [--threshold ...]`),
 * bound to the key like every limit: a movement it covers is created without auto-approval
 * whatever the flags say, and whoever created it may not approve it.
 */
import {describeOperator, sameOperator, type Operator} from '../config/identity.js'
import type {LimitSet} from '../config/resolve.js'
import {NotConfirmedError} from '../errors.js'
import {formatMoney} from '../money.js'
import type {Known} from './types.js'

/**
 * What maker-checker can and cannot do, said wherever it is set or used (profiles set output and
 * help, approvals review --help, the README's controls).
 */
export const MAKER_CHECKER_SCOPE =
  'Maker-checker is a control of this CLI, not of the service, until a team control store holds the policy: anyone with the API key can approve elsewhere.'

/** The profile whose maker-checker policy covers this amount (any amount when unknown), if one does. */
export function makerCheckerFor(sets: LimitSet[], minor: number | null | undefined, currency: string | null | undefined): string | undefined {
  for (const s of sets) {
    const policy = s.limits.approval
    if (!policy) continue
    const cap = currency ? policy.threshold?.[currency.toUpperCase()] : undefined
    if (!policy.threshold || minor == null || cap === undefined || minor > cap) return s.profile
  }
  return undefined
}

/** Why a create was turned into one that awaits approval, for the operator (once it exists). */
export function heldForApproval(profile: string, minor: number, currency: string, noun: string, id = 'ID'): string {
  return `maker-checker (profile "${profile}"): this ${noun} of ${formatMoney(minor, currency)} is created without auto-approval; another operator approves it (\`payops approvals\`, or \`payops approvals request ${id} --out FILE\` for a checker elsewhere).`
}

/**
 * Refuses (exit 3, nothing sent) an approval by the operator who created the movement. A movement
 * this machine did not create has no known maker here: the other checks still apply.
 */
export function refuseOwnApproval(sets: LimitSet[], known: Known | undefined, me: Operator | undefined, noun: string, id: string): void {
  const profile = makerCheckerFor(sets, known?.amount_in_minor_units, known?.currency_code)
  if (!profile || !me || !known?.created_by) return
  if (!sameOperator(known.created_by, me)) return
  throw new NotConfirmedError(
    `maker-checker (profile "${profile}"): ${noun} ${id} was created by ${describeOperator(known.created_by)}, who cannot also approve it. Nothing was sent; another operator approves it (\`payops approvals request ${id} --out FILE\` hands it to a checker elsewhere).`,
  )
}
