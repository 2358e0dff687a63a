/**
 * Calendar days as the books count them: dates `YYYY-MM-DD` and day numbers since 1970-01-01. A
 * day is a UTC day, except where the spec ties a date to its schedule time zone
 * (SCHEDULE_TIME_ZONE, America/New_York): a transfer's send day and the "today" it is compared with.
 */
import {SCHEDULE_TIME_ZONE} from '../api/assumptions.js'
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

const scheduleDays = new Intl.DateTimeFormat('en-US', {timeZone: SCHEDULE_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit'})

/**
 * The service's now: this machine's clock moved by how far the service's own runs from it, as the
 * HTTP `Date` of its answers shows it (0 within two minutes). Read after a first answer; the books'
 * "today" follows the service's day (an emulator's moved clock too), never a control's.
 */
export function serviceNow(ctx: {clock: {now(): number}}, api: {client: {serviceSkew(): number}}): number {
  return ctx.clock.now() + api.client.serviceSkew()
}

/** The day `ms` falls on in the schedule time zone (America/New_York), `YYYY-MM-DD`. */
export function scheduleDayOf(ms: number): string {
  const parts = Object.fromEntries(scheduleDays.formatToParts(ms).map((p) => [p.type, p.value]))
  return `${parts.year}-${parts.month}-${parts.day}`
}

/**
 * A transfer's send day: its `scheduled_date` (a day in the schedule time zone), else the day it was
 * created there; undefined when neither is known.
 */
export function sendDayOf(t: {scheduled_date?: string | null; created_at?: string | null}): string | undefined {
  if (t.scheduled_date) return t.scheduled_date.slice(0, 10)
  const created = t.created_at ? Date.parse(t.created_at) : Number.NaN
  return Number.isNaN(created) ? undefined : scheduleDayOf(created)
}

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
