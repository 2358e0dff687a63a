/**
 * Shapes shared by every resource: envelopes, list pages, error bodies, client metadata, and the
 * helpers that absorb the drift the spec documents. Each resource module declares its schema once;
 * the client parses responses with it and the emulator validates requests with it.
 */
import * as z from 'zod/mini'
import en from 'zod/v4/locales/en.js'

// The mini build installs no locale: English messages, as the classic build gives them.
z.config(en())

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
  if ((obj[canonical] === undefined || obj[canonical] === null) && (typeof obj[legacy] === 'number' || typeof obj[legacy] === 'bigint')) {
    obj[canonical] = obj[legacy]
  }
}

export function lowerStatus(obj: Record<string, unknown>, field = 'status'): void {
  if (typeof obj[field] === 'string') obj[field] = (obj[field] as string).toLowerCase()
}

/** Wraps a normaliser so that non-objects reach the schema untouched (and fail there, clearly). */
export function drift<T extends z.ZodMiniType>(fix: (o: Record<string, unknown>) => Record<string, unknown>, schema: T) {
  return preprocess((v) => (v && typeof v === 'object' && !Array.isArray(v) ? fix(v as Record<string, unknown>) : v), schema)
}

/** Runs `fn` on the input before `schema` sees it (what `z.preprocess` does in the classic build). */
export function preprocess<T extends z.ZodMiniType>(fn: (v: unknown) => unknown, schema: T) {
  return z.pipe(z.transform<unknown, unknown>(fn), schema)
}

/** Integers in minor units: JSON numbers that are safe integers. */
export const MinorUnits = z.int()
/**
 * A running total in minor units (a subaccount's incoming or outgoing): a safe integer, or past
 * 2^53 the BigInt the client's JSON parser reads it as, exactly; within signed 64 bits.
 */
export const MinorTotal = z.union([z.int(), z.bigint().check(z.gte(-(2n ** 63n)), z.lte(2n ** 63n - 1n))])
export const Timestamp = z.string()
export const Uuid = z.uuid({message: 'must be a UUID'})
export const DateString = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'))

export const METADATA_LIMITS = {maxKeys: 50, maxKeyLength: 40, maxValueLength: 500, maxBytes: 16 * 1024} as const

/** `client_metadata` of a move: string keys and values, within the spec's limits. */
export const ClientMetadata = z.record(z.string(), z.string({message: 'values must be strings'})).check(
  z.superRefine((m, ctx) => {
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
  }),
)

/** `{ data, warning? }` */
export function envelope<T extends z.ZodMiniType>(data: T) {
  return z.looseObject({data, warning: z.nullish(z.string())})
}

/** The list envelope, with the page fields optional as the spec shows them. */
export function listEnvelope<T extends z.ZodMiniType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    has_more: z._default(z.optional(z.boolean()), false),
    total_count: z.nullish(z.int()),
    next_cursor: z.nullish(z.string()),
    previous_cursor: z.nullish(z.string()),
  })
}

/**
 * Error bodies: the spec names the `error_code` field but not the layout, so every plausible one is
 * read: `{error_code, message}`, `{error: {error_code|code, message}}`, `{errors: [{message}]}`.
 */
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined)

/**
 * Error bodies: the spec names the `error_code` field but not the layout, so every plausible one is
 * read, field by field (a wrong-typed field never hides the good ones): `{error_code, message}`,
 * `{error: {error_code|code, message}}`, `{error: "text"}`, `{errors: [{field, message}]}`.
 */
export function readErrorBody(body: unknown): {errorCode?: string; message?: string; requestId?: string; details?: unknown} {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {}
  const b = body as Record<string, unknown>
  const nested = b.error && typeof b.error === 'object' && !Array.isArray(b.error) ? (b.error as Record<string, unknown>) : {}
  const list = Array.isArray(b.errors) ? (b.errors as unknown[]).filter((e): e is Record<string, unknown> => Boolean(e) && typeof e === 'object') : undefined
  const fromList = list
    ?.map((e) => (str(e.field) ? `${str(e.field)}: ${str(e.message) ?? 'invalid'}` : str(e.message)))
    .filter(Boolean)
    .join('; ')
  return {
    errorCode: str(b.error_code) ?? str(nested.error_code) ?? str(b.code) ?? str(nested.code),
    message: str(b.message) ?? str(nested.message) ?? str(b.detail) ?? str(b.error) ?? (fromList || undefined),
    requestId: str(b.request_id) ?? str(nested.request_id),
    details: list,
  }
}

/** One line naming each failing field: `data.id: expected string, got undefined`. */
export function describeIssues(error: z.core.$ZodError, prefix = ''): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.')
      return path ? `${path}: ${i.message}` : i.message
    })
    .join('; ')
}
