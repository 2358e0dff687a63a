/**
 * Cursor pagination over a {@link Table}'s items, or any {@link SeqList} (sorted by seq, which is
 * creation order).
 *
 * A cursor is an opaque base64url string naming the seq of the item it continues from, the
 * direction (next or previous page), the order it was made for and a fingerprint of the list and
 * filter set (`scope`). A cursor that is malformed, or made for another order or scope, is a 400.
 *
 * Without a filter a page costs O(log n + limit): the cursor position is binary-searched. With a
 * filter the scan starts at the cursor and stops after `limit + 1` matches; `total_count` then
 * needs one pass over the list.
 */
import {validationError} from '../lib/http-error.js'
import type {Row} from '../store/index.js'

export const DEFAULT_LIMIT = 50
export const MAX_LIMIT = 500

export type Order = 'asc' | 'desc'

export interface PageOptions<T> {
  limit?: number
  order?: Order
  cursor?: string
  filter?: (item: T) => boolean
  /** Identifies the list and its filter set; cursors only work within the same scope. */
  scope?: string
}

/** The spec's list envelope. */
export interface ListPage<V> {
  data: V[]
  has_more: boolean
  total_count: number
  next_cursor: string | null
  previous_cursor: string | null
}

interface Cursor {
  seq: number
  /** `n`: the page after `seq`; `p`: the page before it. */
  dir: 'n' | 'p'
  order: Order
  scope: string
}

/**
 * A list sorted by seq that is not an array of rows: its length, the seq at a position and the item
 * there (an activity list, whose lines of moves are read from the moves).
 */
export interface SeqList<T> {
  readonly length: number
  seqAt(i: number): number
  at(i: number): T
}

function arrayList<T extends Row>(items: readonly T[]): SeqList<T> {
  return {length: items.length, seqAt: (i) => items[i].seq, at: (i) => items[i]}
}

export function paginate<T extends Row, V = T>(items: readonly T[], opts: PageOptions<T>, view?: (item: T) => V): ListPage<V>
export function paginate<T, V = T>(items: SeqList<T>, opts: PageOptions<T>, view?: (item: T) => V): ListPage<V>
export function paginate<T, V = T>(source: readonly Row[] | SeqList<T>, opts: PageOptions<T>, view?: (item: T) => V): ListPage<V> {
  const list = (Array.isArray(source) ? arrayList(source as readonly Row[]) : source) as SeqList<T>
  const limit = opts.limit ?? DEFAULT_LIMIT
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw validationError(`limit: limit must be 1 to ${MAX_LIMIT}`)
  const order = opts.order ?? 'desc'
  if (order !== 'asc' && order !== 'desc') throw validationError('order: order must be asc or desc')
  const scope = fingerprint(opts.scope ?? '')
  const filter = opts.filter
  const n = list.length
  // Positions are walked in list order: step +1 for asc, -1 for desc.
  const step = order === 'asc' ? 1 : -1
  const cursor = opts.cursor === undefined || opts.cursor === '' ? undefined : decodeCursor(opts.cursor, order, scope)

  // Positions of the page's items, in list order.
  let page: number[]
  let hasMore: boolean
  let hasPrevious: boolean
  if (!cursor || cursor.dir === 'n') {
    // First position (in list order) after the cursor item.
    let start: number
    if (!cursor) start = order === 'asc' ? 0 : n - 1
    else start = order === 'asc' ? seqUpperBound(list, cursor.seq) : seqLowerBound(list, cursor.seq) - 1
    const found = collect(list, start, step, limit + 1, filter)
    hasMore = found.length > limit
    page = hasMore ? found.slice(0, limit) : found
    hasPrevious = cursor !== undefined && exists(list, (page.length ? page[0] : start) - step, -step, filter)
  } else {
    // The page that ends just before the cursor item, still presented in list order.
    const end = order === 'asc' ? seqLowerBound(list, cursor.seq) - 1 : seqUpperBound(list, cursor.seq)
    const found = collect(list, end, -step, limit + 1, filter)
    hasPrevious = found.length > limit
    page = (hasPrevious ? found.slice(0, limit) : found).reverse()
    hasMore = exists(list, (page.length ? page[page.length - 1] : end) + step, step, filter)
  }

  const first = page[0]
  const last = page[page.length - 1]
  return {
    data: page.map((i) => (view ? view(list.at(i)) : (list.at(i) as unknown as V))),
    has_more: hasMore,
    total_count: filter ? count(list, filter) : n,
    next_cursor: hasMore && last !== undefined ? encodeCursor({seq: list.seqAt(last), dir: 'n', order, scope}) : null,
    previous_cursor: hasPrevious && first !== undefined ? encodeCursor({seq: list.seqAt(first), dir: 'p', order, scope}) : null,
  }
}

/** Up to `max` positions from `from` on (by `step`) whose items pass the filter. */
function collect<T>(list: SeqList<T>, from: number, step: number, max: number, filter?: (item: T) => boolean): number[] {
  const out: number[] = []
  for (let i = from; i >= 0 && i < list.length && out.length < max; i += step) {
    if (!filter || filter(list.at(i))) out.push(i)
  }
  return out
}

function exists<T>(list: SeqList<T>, from: number, step: number, filter?: (item: T) => boolean): boolean {
  if (!filter) return from >= 0 && from < list.length
  for (let i = from; i >= 0 && i < list.length; i += step) if (filter(list.at(i))) return true
  return false
}

function count<T>(list: SeqList<T>, filter: (item: T) => boolean): number {
  let c = 0
  for (let i = 0; i < list.length; i++) if (filter(list.at(i))) c++
  return c
}

/** Position of the first item whose seq is >= `seq`. */
function seqLowerBound(list: SeqList<unknown>, seq: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list.seqAt(mid) < seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Position of the first item whose seq is > `seq`. */
function seqUpperBound(list: SeqList<unknown>, seq: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list.seqAt(mid) <= seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

const CURSOR_RE = /^[A-Za-z0-9_-]{1,200}$/

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`v1.${c.dir}.${c.order}.${c.seq}.${c.scope}`, 'utf8').toString('base64url')
}

function decodeCursor(raw: string, order: Order, scope: string): Cursor {
  const bad = () => validationError('cursor: cursor is malformed or expired')
  if (!CURSOR_RE.test(raw)) throw bad()
  const parts = Buffer.from(raw, 'base64url').toString('utf8').split('.')
  if (parts.length !== 5 || parts[0] !== 'v1') throw bad()
  const [, dir, cursorOrder, seqText, cursorScope] = parts
  if ((dir !== 'n' && dir !== 'p') || (cursorOrder !== 'asc' && cursorOrder !== 'desc') || !/^\d{1,15}$/.test(seqText)) throw bad()
  if (cursorOrder !== order) throw validationError(`cursor: cursor was made for order=${cursorOrder}, not order=${order}`)
  if (cursorScope !== scope) throw validationError('cursor: cursor was made for another list or another set of filters')
  return {seq: Number(seqText), dir, order: cursorOrder, scope: cursorScope}
}

/** A short FNV-1a hash of the scope string, so cursors stay small. */
function fingerprint(s: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(36)
}
