/**
 * The emulator's calendar: instants and durations as `emulator clock` and scenario files write
 * them, and the days of the schedule timezone (America/New_York, where the service places a
 * transfer's `scheduled_date`). Pure functions; the clock itself is the store's (store/core.ts:
 * the wall clock plus an offset, never going backwards) and what runs when it moves is in
 * lifecycle/scheduler.ts.
 */

/** The timezone of `scheduled_date` (send days) and of the days the emulator's clock steps through. */
export const SCHEDULE_TIMEZONE = 'America/New_York'

const DAY_MS = 86_400_000
const UNIT_MS: Readonly<Record<string, number>> = {w: 7 * DAY_MS, d: DAY_MS, h: 3_600_000, m: 60_000, s: 1000}
/** The longest single move of the clock (`clock advance`): ten years. */
export const MAX_ADVANCE_MS = 3660 * DAY_MS

const INSTANT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/

/**
 * An ISO 8601 instant with its offset (`2026-01-05T09:00:00-05:00`, `…Z`), or a date alone
 * (`2026-01-05`, the start of that day in the schedule timezone), as milliseconds; undefined when
 * `text` is neither or names no real day.
 */
export function parseInstant(text: string): number | undefined {
  const t = text.trim()
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return isRealDate(t) ? startOfDay(t) : undefined
  if (!INSTANT_RE.test(t) || !isRealDate(t.slice(0, 10))) return undefined
  const ms = Date.parse(t)
  return Number.isFinite(ms) ? ms : undefined
}

/** True for a `YYYY-MM-DD` that names a real calendar day. */
export function isRealDate(date: string): boolean {
  const d = new Date(`${date}T00:00:00Z`)
  return Number.isFinite(d.getTime()) && d.toISOString().slice(0, 10) === date
}

/**
 * A duration such as `2d`, `36h`, `1d12h`, `90m`, `1w` or `30s` as milliseconds; undefined when
 * `text` is not one (or is zero, or longer than {@link MAX_ADVANCE_MS}).
 */
export function parseDuration(text: string): number | undefined {
  const t = text.trim().toLowerCase()
  if (!/^(\d+[wdhms])+$/.test(t)) return undefined
  let ms = 0
  for (const [, n, unit] of t.matchAll(/(\d+)([wdhms])/g)) ms += Number(n) * UNIT_MS[unit]
  return ms > 0 && ms <= MAX_ADVANCE_MS ? ms : undefined
}

const dayFormat = new Intl.DateTimeFormat('en-CA', {timeZone: SCHEDULE_TIMEZONE, year: 'numeric', month: '2-digit', day: '2-digit'})
const partsFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: SCHEDULE_TIMEZONE,
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
})

/** The day (`YYYY-MM-DD`) it is at `ms` in the schedule timezone. */
export function scheduleDay(ms: number): string {
  return dayFormat.format(new Date(ms))
}

/** How far the schedule timezone is ahead of UTC at `ms` (negative: behind), in milliseconds. */
function zoneOffset(ms: number): number {
  const p = Object.fromEntries(partsFormat.formatToParts(new Date(ms)).map((x) => [x.type, x.value]))
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second))
  return asUtc - Math.floor(ms / 1000) * 1000
}

/** The instant a day (`YYYY-MM-DD`) begins in the schedule timezone. */
export function startOfDay(date: string): number {
  const midnightUtc = Date.parse(`${date}T00:00:00Z`)
  // Twice: the offset at the guess may differ from the offset at the answer around a DST change.
  let ms = midnightUtc - zoneOffset(midnightUtc)
  ms = midnightUtc - zoneOffset(ms)
  return ms
}

/** `date` plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

/** The UTC day of `ms` (what a bank line's default `transaction_date` is, as the spec says). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/**
 * A transfer's send day: its `scheduled_date` (a day in the schedule timezone), else the day it was
 * created there; undefined when neither is known.
 */
export function sendDayOf(t: {scheduled_date?: string | null; created_at?: string | null}): string | undefined {
  if (t.scheduled_date) return t.scheduled_date.slice(0, 10)
  const created = t.created_at ? Date.parse(t.created_at) : Number.NaN
  return Number.isNaN(created) ? undefined : scheduleDay(created)
}
