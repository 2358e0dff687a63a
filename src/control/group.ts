/**
 * Group commit: requests that arrive while one transaction of the store is in flight wait for it
 * and are then taken together, in one transaction of their own. A request that arrives when the
 * store is idle goes at once, alone, so a single command waits for nothing; an import's slots, each
 * deciding its next row while the last is in flight, share one commit instead of one each.
 *
 * `flush` gets the waiting items in arrival order and resolves with one result per item (a value,
 * or an error for that item alone); if it throws, every item of the group fails with that error.
 */
export type Settled<O> = {ok: true; value: O} | {ok: false; error: unknown}

export function grouped<I, O>(flush: (items: I[]) => Promise<Array<Settled<O>>>, maxGroup = 256): (item: I) => Promise<O> {
  let waiting: Array<{item: I; resolve: (v: O) => void; reject: (e: unknown) => void}> = []
  let busy = false
  const next = async (): Promise<void> => {
    busy = true
    while (waiting.length) {
      const group = waiting.slice(0, maxGroup)
      waiting = waiting.slice(group.length)
      try {
        const results = await flush(group.map((w) => w.item))
        group.forEach((w, i) => {
          const r = results[i]
          if (r?.ok) w.resolve(r.value)
          else w.reject(r ? r.error : new Error('no result for a grouped request'))
        })
      } catch (err) {
        for (const w of group) w.reject(err)
      }
    }
    busy = false
  }
  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({item, resolve, reject})
      if (!busy) void next()
    })
}
