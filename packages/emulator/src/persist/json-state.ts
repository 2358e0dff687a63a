/**
 * A JSON state file of an earlier payops (the whole store as one JSON document), read only to
 * convert it into a new SQLite state (`--import-state`), checked whole first: JSON, the top-level
 * shape, every entity's tables.
 */
import {readFile, stat} from 'node:fs/promises'
import * as z from 'zod/mini'
import {UsageError} from '../lib/errors.js'
import {describeIssues} from '../interface/issues.js'
import {ActivityBook, ENTITY_ROLES, Entity, Grouped, Store, Table} from '../store/index.js'
import {refuseSymlinks} from './db.js'
import {invalid, reason} from './files.js'

const RowShape = z.looseObject({id: z.string(), seq: z.number()})
const RowsShape = z.array(RowShape)
const GroupedShape = z.record(z.string(), RowsShape)
const MapShape = z.record(z.string(), z.unknown())

/** The top level of a JSON state file (earlier payops), as {@link Store.toJSON} writes it. */
export const StateShape = z.looseObject({
  version: z.number(),
  seq: z.optional(z.number()),
  clock: z.optional(z.number()),
  primary_keys: z.object({test: z.string(), test_other: z.string(), live: z.string()}),
  api_keys: z.array(z.looseObject({key: z.string(), entity_id: z.string(), read_only: z.optional(z.boolean()), created_at: z.optional(z.string())})),
  entities: z.array(
    z.looseObject({
      id: z.string(),
      role: z.enum(ENTITY_ROLES),
      name: z.string(),
      mode: z.enum(['test', 'live']),
      routing_number: z.string(),
      created_at: z.string(),
    }),
  ),
  session_signing_secret: z.optional(z.string()),
})

const CURRENT_JSON_VERSION = new Store().toJSON().version

/** The problems of a parsed JSON state file, or undefined when its shape is right. */
function shapeProblem(json: unknown): string | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return 'it is not a JSON object'
  const version = (json as {version?: unknown}).version
  if (version !== CURRENT_JSON_VERSION) return `unsupported state version ${JSON.stringify(version) ?? 'undefined'} (expected ${CURRENT_JSON_VERSION})`
  const r = StateShape.safeParse(json)
  if (!r.success) return describeIssues(r.error)
  const state = r.data
  const entityIds = new Set(state.entities.map((e) => e.id))
  for (const role of ENTITY_ROLES) if (!state.entities.some((e) => e.role === role)) return `no entity with role "${role}"`
  for (const [i, k] of state.api_keys.entries()) if (!entityIds.has(k.entity_id)) return `api_keys.${i}: unknown entity ${k.entity_id}`
  const keys = new Set(state.api_keys.map((k) => k.key))
  for (const role of ENTITY_ROLES) if (!keys.has(state.primary_keys[role])) return `primary_keys.${role}: not among api_keys`
  // Each entity's tables, checked against the fields a fresh entity has.
  for (const [i, ej] of state.entities.entries()) {
    const probe = new Entity({id: ej.id, role: ej.role, name: ej.name, mode: ej.mode, routing_number: ej.routing_number, created_at: ej.created_at})
    for (const [k, field] of Object.entries(probe)) {
      const v = (ej as Record<string, unknown>)[k]
      if (v === undefined || v === null) continue
      const schema = field instanceof Table ? RowsShape : field instanceof Grouped || field instanceof ActivityBook ? GroupedShape : field instanceof Map ? MapShape : undefined
      if (!schema) continue
      const fr = schema.safeParse(v)
      if (!fr.success) return describeIssues(fr.error, `entities.${i}.${k}`)
    }
  }
  return undefined
}

/**
 * A JSON state file of an earlier payops as a store (to convert it into an SQLite state), checked
 * first (JSON, the top-level shape, every entity's tables); a bad one is a {@link UsageError}. The
 * file is only read.
 */
export async function loadJsonState(path: string): Promise<Store> {
  refuseSymlinks(path, 'state file')
  let text: string
  try {
    const st = await stat(path)
    if (st.isDirectory()) throw invalid(path, 'it is a directory')
    if (!st.isFile()) throw invalid(path, 'it is not a regular file')
    text = await readFile(path, 'utf8')
  } catch (err) {
    if (err instanceof UsageError) throw err
    throw new UsageError(`Cannot read the emulator state file ${path}: ${reason(err)}.`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw invalid(path, `not JSON (${(err as Error).message})`)
  }
  const problem = shapeProblem(json)
  if (problem) throw invalid(path, problem)
  try {
    return Store.fromJSON(json)
  } catch (err) {
    throw invalid(path, (err as Error).message)
  }
}
