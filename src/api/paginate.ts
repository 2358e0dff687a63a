/**
 * Cursor pagination as an async iterator: pages are fetched one at a time, only when the consumer
 * asks for more, so `--all` over any number of items holds one page in memory.
 */
import {ResponseError} from '../errors.js'

export interface Page<T> {
  items: T[]
  hasMore: boolean
  nextCursor?: string | null
  previousCursor?: string | null
  totalCount?: number | null
}

export type PageFetcher<T> = (cursor: string | undefined) => Promise<Page<T>>

export interface PaginateOptions {
  cursor?: string
  /** Stop after this many items in total. */
  maxItems?: number
  /** Follow next_cursor to the end (otherwise one page). */
  all?: boolean
  /** Called after each page with the cursor to continue from, if any. */
  onPage?: (page: Page<unknown>) => void
}

export async function* paginate<T>(fetchPage: PageFetcher<T>, opts: PaginateOptions = {}): AsyncGenerator<T, void, undefined> {
  let cursor = opts.cursor
  let yielded = 0
  const seen = new Set<string>()
  const max = opts.maxItems ?? Number.POSITIVE_INFINITY
  for (;;) {
    const page = await fetchPage(cursor)
    opts.onPage?.(page)
    for (const item of page.items) {
      if (yielded >= max) return
      yield item
      yielded++
    }
    if (yielded >= max || !opts.all) return
    const next = page.nextCursor
    if (!page.hasMore || !next) return
    if (seen.has(next)) throw new ResponseError(`The server returned the same next_cursor twice (${next.slice(0, 40)}); stopping.`, 200)
    seen.add(next)
    cursor = next
  }
}
