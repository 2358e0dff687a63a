/**
 * Work on one key, one piece after another, within this process: a store's decisions share one
 * connection (PostgreSQL) or one write lock (SQLite), and must not interleave.
 */
const queues = new Map<unknown, Promise<unknown>>()

export function inTurn<T>(key: unknown, fn: () => Promise<T>): Promise<T> {
  const before = queues.get(key) ?? Promise.resolve()
  const mine = before.then(fn, fn)
  const settled = mine.then(() => undefined, () => undefined)
  queues.set(key, settled)
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key)
  })
  return mine
}
