/** Calendar days as the books count them: UTC dates `YYYY-MM-DD` and day numbers since 1970-01-01. */
import {UsageError} from '../errors.js'

const DAY_MS = 86_400_000

/** A real calendar date `YYYY-MM-DD`, else a usage error naming the flag. */
export function parseDay(input: string, flag: string): string {
  const s = input.trim()
  const d = new Date(`${s}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s) || Number.isNaN(d.getTime()) || !d.toISOString().startsWith(s)) {
    throw new UsageError(`${flag} must be a calendar date YYYY-MM-DD (got "${input}").`)
  }
  return s
}

export const dayNumber = (date: string): number => Math.floor(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / DAY_MS)
export const dayString = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10)
export const addDays = (date: string, days: number): string => dayString(dayNumber(date) + days)
export const todayOf = (nowMs: number): string => new Date(nowMs).toISOString().slice(0, 10)

/** `YYYY-MM` -> its first and last day. */
export function monthRange(input: string, flag = '--month'): {first: string; last: string} {
  const s = input.trim()
  const m = /^(\d{4})-(\d{2})$/.exec(s)
  const month = m ? Number(m[2]) : 0
  if (!m || month < 1 || month > 12) throw new UsageError(`${flag} must be a month YYYY-MM (got "${input}").`)
  const first = `${m[1]}-${m[2]}-01`
  const next = month === 12 ? `${Number(m[1]) + 1}-01-01` : `${m[1]}-${String(month + 1).padStart(2, '0')}-01`
  return {first, last: addDays(next, -1)}
}
