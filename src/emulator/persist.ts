/**
 * `--state FILE`: the store as one JSON file. Saves are debounced after mutations (and forced at
 * least once a second under a steady stream of them), written to a temporary file and renamed
 * over the target so a crash never leaves a half-written state. The file holds API keys, so it is
 * created with mode 0600.
 */
import {mkdir, readFile, rename, unlink, writeFile} from 'node:fs/promises'
import {dirname} from 'node:path'
import {Store} from './store.js'

export const SAVE_DEBOUNCE_MS = 200
export const SAVE_MAX_WAIT_MS = 1000

/** The store saved at `path`, or undefined when there is no such file. */
export async function loadState(path: string): Promise<Store | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
  try {
    return Store.fromJSON(JSON.parse(text))
  } catch (err) {
    throw new Error(`Emulator state file ${path} is not a valid state: ${(err as Error).message}. Move it away or choose another --state file.`)
  }
}

let tmpCounter = 0

export class StateFile {
  private readonly path: string
  private readonly store: Store
  private readonly log: (line: string) => void
  private timer?: NodeJS.Timeout
  private firstPending = 0
  private writing: Promise<void> = Promise.resolve()
  private unsubscribe?: () => void

  constructor(path: string, store: Store, log: (line: string) => void) {
    this.path = path
    this.store = store
    this.log = log
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
      this.save().catch((err: unknown) => this.log(`emulator: could not save state to ${this.path}: ${(err as Error).message}`))
    }, wait)
    this.timer.unref()
  }

  /** Writes the current state now (after any write already under way). */
  save(): Promise<void> {
    const run = this.writing.then(() => this.write())
    this.writing = run.catch(() => undefined)
    return run
  }

  /** Stops watching and writes the final state. */
  async close(): Promise<void> {
    this.unsubscribe?.()
    this.unsubscribe = undefined
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.save()
  }

  private async write(): Promise<void> {
    const data = JSON.stringify(this.store)
    await mkdir(dirname(this.path), {recursive: true})
    const tmp = `${this.path}.${process.pid}.${++tmpCounter}.tmp`
    try {
      await writeFile(tmp, data, {mode: 0o600})
      await rename(tmp, this.path)
    } catch (err) {
      await unlink(tmp).catch(() => undefined)
      throw err
    }
  }
}
