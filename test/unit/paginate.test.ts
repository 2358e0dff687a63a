import {describe, expect, it} from 'vitest'
import {ResponseError} from '../../src/errors.js'
import {IncompleteListError, MAX_PAGES, paginate, type Page, type PaginateOptions} from '../../src/api/paginate.js'

/** A fake list endpoint: pages keyed by cursor (undefined = first page), recording every fetch. */
function endpoint(pages: Record<string, Page<number>>) {
  const calls: Array<string | undefined> = []
  const fetchPage = async (cursor: string | undefined): Promise<Page<number>> => {
    calls.push(cursor)
    const page = pages[cursor ?? '']
    if (!page) throw new Error(`no page for cursor ${cursor}`)
    return page
  }
  return {calls, fetchPage}
}

const THREE_PAGES: Record<string, Page<number>> = {
  '': {items: [1, 2, 3], hasMore: true, nextCursor: 'c2'},
  c2: {items: [4, 5, 6], hasMore: true, nextCursor: 'c3'},
  c3: {items: [7, 8], hasMore: false, nextCursor: null},
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

async function run(pages: Record<string, Page<number>>, opts?: PaginateOptions) {
  const ep = endpoint(pages)
  const items = await collect(paginate(ep.fetchPage, opts))
  return {items, calls: ep.calls}
}

describe('paginate', () => {
  it('fetches a single page without all, even when more pages exist', async () => {
    const {items, calls} = await run(THREE_PAGES)
    expect(items).toEqual([1, 2, 3])
    expect(calls).toEqual([undefined])
  })

  it('starts from the given cursor', async () => {
    const {items, calls} = await run(THREE_PAGES, {cursor: 'c2'})
    expect(items).toEqual([4, 5, 6])
    expect(calls).toEqual(['c2'])
  })

  it('follows next_cursor to the end with all', async () => {
    const {items, calls} = await run(THREE_PAGES, {all: true})
    expect(items).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(calls).toEqual([undefined, 'c2', 'c3'])
  })

  it('stops at maxItems in the middle of a page without fetching further pages', async () => {
    const {items, calls} = await run(THREE_PAGES, {all: true, maxItems: 5})
    expect(items).toEqual([1, 2, 3, 4, 5])
    expect(calls).toEqual([undefined, 'c2'])
  })

  it('stops at maxItems on a page boundary without fetching the next page', async () => {
    const {items, calls} = await run(THREE_PAGES, {all: true, maxItems: 3})
    expect(items).toEqual([1, 2, 3])
    expect(calls).toEqual([undefined])
  })

  it('caps a single page at maxItems without all', async () => {
    const {items, calls} = await run(THREE_PAGES, {maxItems: 2})
    expect(items).toEqual([1, 2])
    expect(calls).toEqual([undefined])
  })

  it('stops when has_more is false even if a cursor is present', async () => {
    const {items, calls} = await run(
      {
        '': {items: [1], hasMore: false, nextCursor: 'c2'},
        c2: {items: [2], hasMore: false},
      },
      {all: true},
    )
    expect(items).toEqual([1])
    expect(calls).toEqual([undefined])
  })

  it('has_more true without a cursor: the items read, then an IncompleteListError (the list is not whole)', async () => {
    const ep = endpoint({'': {items: [1, 2], hasMore: true, nextCursor: null}})
    const items: number[] = []
    const err = await (async () => {
      for await (const x of paginate(ep.fetchPage, {all: true})) items.push(x)
    })().catch((e: unknown) => e)
    expect(items).toEqual([1, 2])
    expect(ep.calls).toEqual([undefined])
    expect(err).toBeInstanceOf(IncompleteListError)
    expect((err as IncompleteListError).exitCode).toBe(1)
    expect((err as Error).message).toContain('has_more: true without a next_cursor after 2 items')
    // Without --all (one page asked for), or with --max-items reached, nothing more was asked: no error.
    expect((await run({'': {items: [1], hasMore: true, nextCursor: null}})).items).toEqual([1])
    expect((await run({'': {items: [1, 2], hasMore: true, nextCursor: null}}, {all: true, maxItems: 2})).items).toEqual([1, 2])
  })

  it('follows pages that are empty but say has_more', async () => {
    const {items} = await run(
      {
        '': {items: [], hasMore: true, nextCursor: 'c2'},
        c2: {items: [9], hasMore: false},
      },
      {all: true},
    )
    expect(items).toEqual([9])
  })

  it('throws a ResponseError when the server repeats a cursor', async () => {
    const ep = endpoint({
      '': {items: [1], hasMore: true, nextCursor: 'a'},
      a: {items: [2], hasMore: true, nextCursor: 'b'},
      b: {items: [3], hasMore: true, nextCursor: 'a'},
    })
    const seen: number[] = []
    const err = await (async () => {
      try {
        for await (const x of paginate(ep.fetchPage, {all: true})) seen.push(x)
      } catch (e) {
        return e
      }
      return undefined
    })()
    expect(err).toBeInstanceOf(ResponseError)
    expect((err as ResponseError).exitCode).toBe(1)
    expect((err as ResponseError).message).toContain('same next_cursor twice')
    expect(seen).toEqual([1, 2, 3])
    expect(ep.calls).toEqual([undefined, 'a', 'b'])
  })

  it('stops when the server hands a new cursor for a page it already returned (exit 1), not after 80,000 requests', async () => {
    let n = 0
    const calls: Array<string | undefined> = []
    const endless = async (cursor: string | undefined): Promise<Page<{id: string}>> => {
      calls.push(cursor)
      return {items: [{id: 'a'}, {id: 'b'}, {id: 'c'}], hasMore: true, nextCursor: `cursor-${++n}`}
    }
    const seen: string[] = []
    const err = await (async () => {
      try {
        for await (const x of paginate(endless, {all: true})) seen.push(x.id)
      } catch (e) {
        return e as ResponseError
      }
    })()
    expect(err).toBeInstanceOf(ResponseError)
    expect(err?.exitCode).toBe(1)
    expect(err?.message).toMatch(/returned a page it had already returned \(3 items, under another cursor\); stopping\./)
    expect(seen).toEqual(['a', 'b', 'c'])
    expect(calls.length).toBeLessThanOrEqual(3)
  })

  it('stops at the documented page cap when pages keep coming', async () => {
    let n = 0
    const endless = async (): Promise<Page<{id: string}>> => ({items: [{id: `item-${n}`}], hasMore: true, nextCursor: `cursor-${++n}`})
    let count = 0
    const err = await (async () => {
      try {
        for await (const _ of paginate(endless, {all: true})) count++
      } catch (e) {
        return e as ResponseError
      }
    })()
    expect(err?.message).toMatch(/Stopped after 100,000 pages: the list does not end/)
    expect(count).toBe(MAX_PAGES)
  }, 60_000)

  it('is lazy: nothing is fetched until the consumer asks, and breaking early stops fetching', async () => {
    const ep = endpoint(THREE_PAGES)
    const it = paginate(ep.fetchPage, {all: true})
    expect(ep.calls).toEqual([])
    const got: number[] = []
    for await (const x of it) {
      got.push(x)
      if (x === 4) break
    }
    expect(got).toEqual([1, 2, 3, 4])
    expect(ep.calls).toEqual([undefined, 'c2'])
    await new Promise((r) => setTimeout(r, 10))
    expect(ep.calls).toEqual([undefined, 'c2'])
  })

  it('calls onPage once per fetched page', async () => {
    const pages: Array<Page<unknown>> = []
    await run(THREE_PAGES, {all: true, onPage: (p) => pages.push(p)})
    expect(pages.map((p) => p.nextCursor)).toEqual(['c2', 'c3', null])
  })

  it('propagates a fetch error', async () => {
    const boom = new Error('boom')
    const it = paginate(async () => {
      throw boom
    })
    await expect(collect(it)).rejects.toBe(boom)
  })
})
