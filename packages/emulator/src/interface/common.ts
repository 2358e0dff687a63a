/**
 * Rules every area shares, from the spec's Conventions and Limits: identifiers are UUIDs, dates
 * `YYYY-MM-DD`, list pages take `cursor`, `limit` (1 to 500) and `order`, and a move's
 * `client_metadata` is string to string within the stated limits.
 */
import * as z from 'zod/mini'
import './issues.js'

export const Uuid = z.uuid({message: 'must be a UUID'})

/** A `YYYY-MM-DD` that names a real day; `message` says what it must be when it does not. */
export function calendarDate(message: string) {
  return z.string().check(
    z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
    z.refine((s: string) => {
      const d = new Date(`${s}T00:00:00Z`)
      return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(s)
    }, message),
  )
}

/** A date of the treasury areas (bank lines, simulated credits). */
export const CalendarDate = calendarDate('must be a real calendar date')

/** List `limit`: default 50, maximum 500 (Limits). */
export const Limit = z.coerce.number().check(z.int('limit must be an integer'), z.gte(1, 'limit must be 1 to 500'), z.lte(500, 'limit must be 1 to 500'))
export const Order = z.enum(['asc', 'desc'], {message: 'order must be asc or desc'})

/** The query of a plain list: `cursor`, `limit`, `order`. */
export const PageQuery = {cursor: z.optional(z.string()), limit: z.optional(Limit), order: z.optional(Order)}

/** Runs `fn` on the input before `schema` sees it. */
export function preprocess<T extends z.ZodMiniType>(fn: (v: unknown) => unknown, schema: T) {
  return z.pipe(z.transform<unknown, unknown>(fn), schema)
}

/** A query parameter that may be repeated: always an array after parsing. */
export function repeated<T extends z.ZodMiniType>(item: T) {
  return preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.optional(z.array(item)))
}

/** Limits of a move's `client_metadata` (Limits). */
export const METADATA_LIMITS = {maxKeys: 50, maxKeyLength: 40, maxValueLength: 500, maxBytes: 16 * 1024} as const

/** `client_metadata`: string keys and string values, at most 50 keys of 40 characters, values of 500, 16 KB in all. */
export const ClientMetadata = z.record(z.string(), z.string({message: 'values must be strings'})).check(
  z.superRefine((m, ctx) => {
    const keys = Object.keys(m)
    if (keys.length > METADATA_LIMITS.maxKeys) ctx.addIssue({code: 'custom', message: `at most ${METADATA_LIMITS.maxKeys} keys (got ${keys.length})`})
    for (const k of keys) {
      if (k.length > METADATA_LIMITS.maxKeyLength) ctx.addIssue({code: 'custom', message: `key "${k.slice(0, 50)}" is longer than ${METADATA_LIMITS.maxKeyLength} characters`})
      if (typeof m[k] === 'string' && m[k].length > METADATA_LIMITS.maxValueLength) ctx.addIssue({code: 'custom', message: `value of "${k}" is longer than ${METADATA_LIMITS.maxValueLength} characters`})
    }
    const bytes = Buffer.byteLength(JSON.stringify(m))
    if (bytes > METADATA_LIMITS.maxBytes) ctx.addIssue({code: 'custom', message: `is ${bytes} bytes, more than ${METADATA_LIMITS.maxBytes} (16 KB)`})
  }),
)
