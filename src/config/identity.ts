/**
 * Who is at the keyboard, as far as this machine can tell: the operator's name from the profile
 * (`profiles set NAME operator-name "Ana Ruiz"`), the OS user and the host. Written into every
 * audit record, and compared by the maker-checker guard.
 */
import {hostname, userInfo} from 'node:os'

export interface Operator {
  /** The name the profile gives (null when none is set). */
  operator: string | null
  os_user: string
  host: string
}

function osUser(): string {
  try {
    return userInfo().username || 'unknown'
  } catch {
    return 'unknown'
  }
}

export function currentOperator(name: string | undefined | null): Operator {
  return {operator: name ?? null, os_user: osUser(), host: hostname() || 'unknown'}
}

/**
 * The same person, as far as can be told: the operator names when both are set, else the OS
 * user on the same host. (Names are what a team sets to tell people apart; without them, an OS
 * account is the only identity there is.)
 */
export function sameOperator(a: Partial<Operator>, b: Partial<Operator>): boolean {
  if (a.operator && b.operator) return a.operator === b.operator
  return Boolean(a.os_user && a.host && a.os_user === b.os_user && a.host === b.host)
}

/** `Ana Ruiz (ana@ledger-01)`, or `ana@ledger-01` without a name. */
export function describeOperator(o: Partial<Operator>): string {
  const who = `${o.os_user ?? 'unknown'}@${o.host ?? 'unknown'}`
  return o.operator ? `${o.operator} (${who})` : who
}
