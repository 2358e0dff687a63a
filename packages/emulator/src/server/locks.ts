/**
 * Serialises work per key: `run(key, fn)` starts `fn` only after every earlier `fn` of the same
 * key has settled. Keys with nothing in flight cost one Map lookup.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>()

  async run<T>(key: string, fn: () => T | Promise<T>): Promise<T> {
    const previous = this.tails.get(key)
    const current = (previous ? previous.then(fn, fn) : Promise.resolve().then(fn)) as Promise<T>
    const tail = current.catch(() => undefined)
    this.tails.set(key, tail)
    try {
      return await current
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key)
    }
  }

  /** Keys with work queued or running. */
  get size(): number {
    return this.tails.size
  }
}
