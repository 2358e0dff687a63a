/**
 * Cursor pagination as an async iterator. With `all`, the next page is requested as soon as the
 * consumer asks for more than a page's first item, and arrives while the consumer is still taking
 * (and writing) the rest of that page: one page ahead, so a long list costs about one round trip
 * per page instead of a round trip plus the writing, and memory holds at most two pages whatever
 * the length of the list. Nothing is requested beyond `maxItems`, without `all`, past the last
 * page, or for a consumer that stops at a page's first item.
 */
import {createHash} from 'node:crypto'
import {ResponseError} from '../errors.js'

/**
 * A list that cannot be read to its end: the server said it has more (`has_more: true`) and gave no
 * `next_cursor`. What was read is not the whole list, so nothing computed from it may be shown as if
 * it were (exit 1, after the items already written).
 */
export class IncompleteListError extends ResponseError {
  override name = 'IncompleteListError'
  constructor(read: number) {
    super(
      `The list is incomplete: the server answered has_more: true without a next_cursor after ${read.toLocaleString('en-US')} item${read === 1 ? '' : 's'}, so the rest cannot be read. Nothing computed from it is shown as whole; narrow the request with filters, or retry.`,
      200,
    )
  }
}

/** `--all` (and `api --paginate`) stop with an error after this many pages: a list that never ends is a server's fault. */
export const MAX_PAGES = 100_000

/** What identifies a page's contents: the ids of its items (or the items themselves, without ids). */
function pageDigest(items: unknown[]): string {
  const hash = createHash('sha256')
  for (const item of items) {
    const id = (item as {id?: unknown} | null)?.id
    hash.update(typeof id === 'string' ? id : JSON.stringify(item) ?? '')
    hash.update('\n')
  }
  return hash.digest('hex').slice(0, 32)
}

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
  let yielded = 0
  const seen = new Set<string>()
  // Pages already returned, by content: a server that hands out new cursors for the same items is stopped.
  const pages = new Set<string>()
  const max = opts.maxItems ?? Number.POSITIVE_INFINITY
  let pending: Promise<Page<T>> | undefined = fetchPage(opts.cursor)
  while (pending) {
    const page: Page<T> = await pending
    pending = undefined
    if (opts.all && page.items.length) {
      const digest = pageDigest(page.items)
      if (pages.has(digest)) throw new ResponseError(`The server returned a page it had already returned (${page.items.length} items, under another cursor); stopping.`, 200)
      pages.add(digest)
      if (pages.size > MAX_PAGES) throw new ResponseError(`Stopped after ${MAX_PAGES.toLocaleString('en-US')} pages: the list does not end. Narrow it with filters, or take part of it with --max-items.`, 200)
    }
    opts.onPage?.(page)
    const next = page.nextCursor
    const more = Boolean(opts.all && yielded + page.items.length < max && page.hasMore && next)
    const repeated = more && seen.has(next!)
    let requested = !more || repeated
    const requestNext = () => {
      if (requested) return
      requested = true
      seen.add(next!)
      const request = fetchPage(next!)
      // A consumer that stops early never awaits it: its failure must not surface as unhandled.
      request.catch(() => undefined)
      pending = request
    }
    for (const item of page.items) {
      if (yielded >= max) return
      yield item
      yielded++
      // Resumed: the consumer wants more than this item, so the next page is worth asking for now.
      requestNext()
    }
    requestNext()
    if (opts.all && page.hasMore && !next && yielded < max) throw new IncompleteListError(yielded)
    if (repeated) throw new ResponseError(`The server returned the same next_cursor twice (${next!.slice(0, 40)}); stopping.`, 200)
  }
}
