/**
 * Shapes shared by every resource: envelopes, list pages, error bodies, client metadata, and the
 * helpers that absorb the drift the spec documents. Each resource module declares its schema once;
 * the client parses responses with it and the emulator validates requests with it.
 */
import {z} from 'zod'

/** Renames drifted keys to their canonical names (without overwriting a canonical value). */
export function renameKeys(obj: Record<string, unknown>, aliases: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {...obj}
  for (const [alias, canonical] of Object.entries(aliases)) {
    if (alias in out) {
      if (out[canonical] === undefined) out[canonical] = out[alias]
      delete out[alias]
    }
  }
  return out
}

/** Copies a deprecated duplicate into the canonical field when only the deprecated one came. */
export function fillFrom(obj: Record<string, unknown>, canonical: string, legacy: string): void {
  if ((obj[canonical] === undefined || obj[canonical] === null) && typeof obj[legacy] === 'number') {
    obj[canonical] = obj[legacy]
  }
}

export function lowerStatus(obj: Record<string, unknown>, field = 'status'): void {
  if (typeof obj[field] === 'string') obj[field] = (obj[field] as string).toLowerCase()
}

/** Wraps a normaliser so that non-objects reach the schema untouched (and fail there, clearly). */
export function drift<T extends z.ZodType>(fix: (o: Record<string, unknown>) => Record<string, unknown>, schema: T) {
  return z.preprocess((v) => (v && typeof v === 'object' && !Array.isArray(v) ? fix(v as Record<string, unknown>) : v), schema)
}

/** Integers in minor units: JSON numbers that are safe integers. */
export const MinorUnits = z.int()
export const Timestamp = z.string()
export const Uuid = z.uuid({message: 'must be a UUID'})
export const DateString = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')

export const METADATA_LIMITS = {maxKeys: 50, maxKeyLength: 40, maxValueLength: 500, maxBytes: 16 * 1024} as const

/** `client_metadata` of a move: string keys and values, within the spec's limits. */
export const ClientMetadata = z.record(z.string(), z.string({message: 'values must be strings'})).superRefine((m, ctx) => {
  const keys = Object.keys(m)
  if (keys.length > METADATA_LIMITS.maxKeys) {
    ctx.addIssue({code: 'custom', message: `at most ${METADATA_LIMITS.maxKeys} keys (got ${keys.length})`})
  }
  for (const k of keys) {
    if (k.length > METADATA_LIMITS.maxKeyLength) {
      ctx.addIssue({code: 'custom', message: `key "${k.slice(0, 50)}" is longer than ${METADATA_LIMITS.maxKeyLength} characters`})
    }
    if (typeof m[k] === 'string' && m[k].length > METADATA_LIMITS.maxValueLength) {
      ctx.addIssue({code: 'custom', message: `value of "${k}" is longer than ${METADATA_LIMITS.maxValueLength} characters`})
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(m))
  if (bytes > METADATA_LIMITS.maxBytes) {
    ctx.addIssue({code: 'custom', message: `is ${bytes} bytes, more than ${METADATA_LIMITS.maxBytes} (16 KB)`})
  }
})

/** `{ data, warning? }` */
export function envelope<T extends z.ZodType>(data: T) {
  return z.looseObject({data, warning: z.string().nullish()})
}

/** The list envelope, with the page fields optional as the spec shows them. */
export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    has_more: z.boolean().optional().default(false),
    total_count: z.int().nullish(),
    next_cursor: z.string().nullish(),
    previous_cursor: z.string().nullish(),
  })
}

/**
 * Error bodies: the spec names the `error_code` field but not the layout, so every plausible one is
 * read: `{error_code, message}`, `{error: {error_code|code, message}}`, `{errors: [{message}]}`.
 */
export const ErrorBody = z.looseObject({
  error_code: z.string().optional(),
  code: z.string().optional(),
  message: z.string().optional(),
  detail: z.string().optional(),
  request_id: z.string().optional(),
  error: z.union([z.string(), z.looseObject({error_code: z.string().optional(), code: z.string().optional(), message: z.string().optional()})]).optional(),
  errors: z.array(z.looseObject({message: z.string().optional(), field: z.string().optional()})).optional(),
})

export function readErrorBody(body: unknown): {errorCode?: string; message?: string; requestId?: string; details?: unknown} {
  const r = ErrorBody.safeParse(body)
  if (!r.success) return {}
  const b = r.data
  const nested = typeof b.error === 'object' ? b.error : undefined
  const message =
    b.message ?? nested?.message ?? b.detail ?? (typeof b.error === 'string' ? b.error : undefined) ??
    b.errors?.map((e) => (e.field ? `${e.field}: ${e.message ?? 'invalid'}` : e.message)).filter(Boolean).join('; ')
  return {
    errorCode: b.error_code ?? nested?.error_code ?? b.code ?? nested?.code,
    message: message || undefined,
    requestId: b.request_id,
    details: b.errors,
  }
}

/** One line naming each failing field: `data.id: expected string, got undefined`. */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.')
      return path ? `${path}: ${i.message}` : i.message
    })
    .join('; ')
}
