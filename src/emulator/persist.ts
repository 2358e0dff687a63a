/**
 * `--state FILE`: the store as one JSON file. Saves are debounced after mutations (and forced at
 * least once a second under a steady stream of them).
 *
 * Every save writes a new temporary file with a random name in the target's directory, created
 * exclusively (O_CREAT|O_EXCL, so a file or symlink planted under that name is never followed)
 * with mode 0600 (the state holds API keys), fsyncs it and renames it over the target: a crash
 * never leaves a half-written state, and nothing outside the target is ever written.
 *
 * A file is checked before it is loaded (JSON, the top-level shape, every entity's tables) and a
 * bad one is refused with a one-line error, left as it is. The target must be writable at start:
 * the first save happens before the emulator listens. A later failed save is reported once on the
 * log and the final save on close throws, so that the command exits non-zero.
 */
import {randomBytes} from 'node:crypto'
import {open, readFile, rename, stat, unlink} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import * as z from 'zod/mini'
import {describeIssues} from '../api/schemas/common.js'
import {ExitCode, PayopsError, UsageError} from '../errors.js'
import {ActivityBook, ENTITY_ROLES, Entity, Grouped, Store, Table} from './store/index.js'

export const SAVE_DEBOUNCE_MS = 200
export const SAVE_MAX_WAIT_MS = 1000

/** A state file that could not be saved after the emulator started: exit 1 when it stops. */
export class StateSaveError extends PayopsError {
  override name = 'StateSaveError'
  constructor(message: string) {
    super(message, ExitCode.UNEXPECTED)
  }
}

const RowShape = z.looseObject({id: z.string(), seq: z.number()})
const RowsShape = z.array(RowShape)
const GroupedShape = z.record(z.string(), RowsShape)
const MapShape = z.record(z.string(), z.unknown())

/** The top level of a state file, as {@link Store.toJSON} writes it. */
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

const CURRENT_VERSION = new Store().toJSON().version

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()

/** Why a file operation failed, in words (no temporary file names). */
function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  switch (e?.code) {
    case 'ENOENT':
      return 'its directory does not exist'
    case 'ENOTDIR':
      return 'a part of its directory path is not a directory'
    case 'EISDIR':
      return 'it is a directory'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'the file system is read-only'
    case 'ENOSPC':
      return 'no space left on the device'
    default:
      return oneLine(String(e?.message ?? err))
  }
}

/** The problems of a parsed state file, or undefined when its shape is right. */
function shapeProblem(json: unknown): string | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return 'it is not a JSON object'
  const version = (json as {version?: unknown}).version
  if (version !== CURRENT_VERSION) return `unsupported state version ${JSON.stringify(version) ?? 'undefined'} (expected ${CURRENT_VERSION})`
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
 * The store saved at `path`, or undefined when there is no such file. A file that is not a valid
 * state (or not a file) is a {@link UsageError} naming it; the file is not touched.
 */
export async function loadState(path: string): Promise<Store | undefined> {
  const invalid = (why: string) =>
    new UsageError(`Emulator state file ${path} is not a valid state: ${oneLine(why)}. It was left untouched; move it away or choose another --state file.`)
  let text: string
  try {
    const st = await stat(path)
    if (st.isDirectory()) throw invalid('it is a directory')
    if (!st.isFile()) throw invalid('it is not a regular file')
    text = await readFile(path, 'utf8')
  } catch (err) {
    if (err instanceof UsageError) throw err
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new UsageError(`Cannot read the emulator state file ${path}: ${reason(err)}.`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw invalid(`not JSON (${(err as Error).message})`)
  }
  const problem = shapeProblem(json)
  if (problem) throw invalid(problem)
  try {
    return Store.fromJSON(json)
  } catch (err) {
    throw invalid((err as Error).message)
  }
}

export class StateFile {
  private readonly path: string
  private readonly store: Store
  private readonly log: (line: string) => void
  private timer?: NodeJS.Timeout
  private firstPending = 0
  private writing: Promise<void> = Promise.resolve()
  private unsubscribe?: () => void
  /** Set while saves fail: the failure has been reported once. */
  private failing = false

  constructor(path: string, store: Store, log: (line: string) => void) {
    this.path = path
    this.store = store
    this.log = log
  }

  /**
   * The first save, before the emulator listens: a target that cannot be written (missing
   * directory, a directory, no permission) is a {@link UsageError}.
   */
  async init(): Promise<void> {
    try {
      await this.save()
    } catch (err) {
      throw new UsageError(`Cannot write the emulator state file ${this.path}: ${reason(err)}.`)
    }
  }

  /** Saves after every mutation of the store, debounced. */
  watch(): void {
    this.unsubscribe ??= this.store.onChange(() => this.schedule())
  }

  schedule(): void {
    const now = Date.now()
    if (!this.timer) this.firstPending = now
    else clearTimeout(this.timer)
    const wait = Math.max(0, Math.min(SAVE_DEBOUNCE_MS, this.firstPending + SAVE_MAX_WAIT_MS - now))
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.save().catch((err: unknown) => {
        if (this.failing) return
        this.failing = true
        this.log(`emulator: could not save state to ${this.path}: ${reason(err)}; changes are not being saved.`)
      })
    }, wait)
    this.timer.unref()
  }

  /** Writes the current state now (after any write already under way). */
  save(): Promise<void> {
    const run = this.writing.then(() => this.write())
    this.writing = run.then(
      () => {
        this.failing = false
      },
      () => undefined,
    )
    return run
  }

  /** Stops watching and writes the final state; a {@link StateSaveError} when that fails. */
  async close(): Promise<void> {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    try {
      await this.save()
    } catch (err) {
      throw new StateSaveError(`Could not save the emulator state to ${this.path}: ${reason(err)}.`)
    }
  }

  private async write(): Promise<void> {
    const data = JSON.stringify(this.store)
    const dir = dirname(this.path)
    const tmp = join(dir, `.${basename(this.path)}.${randomBytes(12).toString('hex')}.tmp`)
    // 'wx' = O_WRONLY|O_CREAT|O_EXCL: fails on any existing name, symlinks included.
    const fh = await open(tmp, 'wx', 0o600)
    try {
      try {
        await fh.writeFile(data)
        await fh.sync()
      } finally {
        await fh.close()
      }
      await rename(tmp, this.path)
    } catch (err) {
      await unlink(tmp).catch(() => undefined)
      throw err
    }
    await syncDir(dir)
  }
}

/** Makes the rename durable; best effort (not every platform can open a directory). */
async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r')
    try {
      await fh.sync()
    } finally {
      await fh.close()
    }
  } catch {
    // ignore
  }
}
