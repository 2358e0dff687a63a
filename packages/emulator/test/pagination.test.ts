import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {HttpError} from '../src/lib/http-error.js'
import {encodeCursor, paginate, type ListPage, type Order} from '../src/server/pagination.js'
import {Table, type Row} from '../src/store/index.js'

interface Item extends Row {
  n: number
}

function table(seqs: number[]): Table<Item> {
  const t = new Table<Item>()
  for (const seq of seqs) t.insert({id: `i${seq}`, seq, n: seq % 7})
  return t
}

function expectHttp400(fn: () => unknown, message?: RegExp): void {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError)
    expect((err as HttpError).status).toBe(400)
    expect((err as HttpError).code).toBe('VALIDATION_ERROR')
    if (message) expect((err as HttpError).message).toMatch(message)
    return
  }
  throw new Error('expected a 400')
}

describe('paginate', () => {
  it('walks forward and back over any list, filter, limit and order without duplicates or gaps', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({min: 1, max: 100_000}), {maxLength: 250}),
        fc.integer({min: 1, max: 40}),
        fc.constantFrom<Order>('asc', 'desc'),
        fc.option(fc.integer({min: 0, max: 6}), {nil: undefined}),
        (seqs, limit, order, residue) => {
          const t = table(seqs)
          const filter = residue === undefined ? undefined : (it: Item) => it.n !== residue
          const expected = [...t.items].filter((it) => !filter || filter(it)).map((it) => it.seq)
          if (order === 'desc') expected.reverse()

          const pages: ListPage<Item>[] = []
          let cursor: string | undefined
          for (let guard = 0; guard < 1000; guard++) {
            const page = paginate(t.items, {limit, order, cursor, filter, scope: 's'})
            pages.push(page)
            expect(page.total_count).toBe(expected.length)
            expect(page.data.length).toBeLessThanOrEqual(limit)
            expect(page.previous_cursor === null).toBe(pages.length === 1)
            if (!page.has_more) break
            expect(page.data).toHaveLength(limit)
            cursor = page.next_cursor!
          }
          expect(pages.flatMap((p) => p.data.map((it) => it.seq))).toEqual(expected)

          // Back from the last page, previous_cursor reproduces each earlier page.
          for (let i = pages.length - 1; i > 0; i--) {
            const back = paginate(t.items, {limit, order, cursor: pages[i].previous_cursor!, filter, scope: 's'})
            expect(back.data.map((it) => it.seq)).toEqual(pages[i - 1].data.map((it) => it.seq))
            expect(back.has_more).toBe(true)
          }
        },
      ),
      {numRuns: 300},
    )
  })

  it('reads O(limit + log n) items per unfiltered page, wherever the cursor is', () => {
    const n = 100_000
    const items = Array.from({length: n}, (_, i) => ({id: `i${i}`, seq: i + 1, n: 0}))
    let reads = 0
    const counted = new Proxy(items, {
      get(target, prop, recv) {
        if (typeof prop === 'string' && /^\d+$/.test(prop)) reads++
        return Reflect.get(target, prop, recv)
      },
    })
    for (const order of ['asc', 'desc'] as const) {
      const cursor = encodeCursor({seq: 73_123, dir: 'n', order, scope: paginateScope('')})
      reads = 0
      const page = paginate(counted, {limit: 50, order, cursor})
      expect(page.data[0].seq).toBe(order === 'asc' ? 73_124 : 73_122)
      expect(page.total_count).toBe(n)
      expect(reads).toBeLessThan(50 + 1 + 2 * 17 + 10)
    }
  })

  it('defaults to 50 items, newest first', () => {
    const t = table(Array.from({length: 60}, (_, i) => i + 1))
    const page = paginate(t.items, {})
    expect(page.data).toHaveLength(50)
    expect(page.data[0].seq).toBe(60)
    expect(page.has_more).toBe(true)
  })

  it('validates limit and order', () => {
    const t = table([1, 2, 3])
    for (const limit of [0, 501, 1.5, -1, Number.NaN]) expectHttp400(() => paginate(t.items, {limit}), /limit/)
    expectHttp400(() => paginate(t.items, {order: 'up' as Order}), /order/)
    expect(paginate(t.items, {limit: 500}).data).toHaveLength(3)
  })

  it('rejects malformed cursors and cursors of another order or scope', () => {
    const t = table([1, 2, 3, 4])
    const next = paginate(t.items, {limit: 2, scope: 'a'}).next_cursor!
    expect(paginate(t.items, {limit: 2, scope: 'a', cursor: next}).data.map((i) => i.seq)).toEqual([2, 1])
    expectHttp400(() => paginate(t.items, {limit: 2, scope: 'b', cursor: next}), /another list/)
    expectHttp400(() => paginate(t.items, {limit: 2, scope: 'a', order: 'asc', cursor: next}), /order=desc/)
    for (const bad of ['%%%', 'abc', Buffer.from('v2.n.desc.1.x').toString('base64url'), Buffer.from('v1.x.desc.1.x').toString('base64url')]) {
      expectHttp400(() => paginate(t.items, {cursor: bad}), /cursor/)
    }
  })

  it('continues correctly after the cursor item was deleted, and keeps a table sorted by seq', () => {
    const t = table([10, 20, 30, 40, 50])
    const first = paginate(t.items, {limit: 2, order: 'asc'})
    expect(first.data.map((i) => i.seq)).toEqual([10, 20])
    expect(t.delete('i20')).toBe(true)
    expect(t.delete('i20')).toBe(false)
    t.insert({id: 'late', seq: 25, n: 0})
    expect(t.items.map((i) => i.seq)).toEqual([10, 25, 30, 40, 50])
    const second = paginate(t.items, {limit: 2, order: 'asc', cursor: first.next_cursor!})
    expect(second.data.map((i) => i.seq)).toEqual([25, 30])
    expect(() => t.insert({id: 'late', seq: 99, n: 0})).toThrow(/duplicate/)
  })
})

/** The scope fingerprint paginate uses for an empty scope, recovered from a cursor it made. */
function paginateScope(scope: string): string {
  const t = table([1, 2])
  const c = paginate(t.items, {limit: 1, scope}).next_cursor!
  return Buffer.from(c, 'base64url').toString('utf8').split('.')[4]
}
