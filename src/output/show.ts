/**
 * What the areas' command functions share to show an answer: one resource with the API's warning,
 * and a list streamed page by page with the hint of its next cursor.
 */
import type {Page, PaginateOptions} from '../api/paginate.js'
import type {Column, Output} from './index.js'

/** A command's list options (the shared list flags, typed). */
export interface ListOptions {
  limit?: number
  cursor?: string
  order?: 'asc' | 'desc'
  /** Follow next_cursor to the end. */
  all?: boolean
  /** Stop after this many items in total (follows pages). */
  maxItems?: number
}

/** One list request: its query (limit, order), how to page, and how to show what comes back. */
export interface Listing {
  limit?: number
  order?: 'asc' | 'desc'
  paginate: PaginateOptions
  /** Renders the items and, on a terminal, hints at the next cursor on stderr. */
  show(out: Output, items: AsyncIterable<Record<string, unknown>>, columns: Column[], known?: Column[]): Promise<void>
}

export function listing(o: ListOptions): Listing {
  let lastPage: Page<unknown> | undefined
  return {
    limit: o.limit,
    order: o.order,
    paginate: {
      cursor: o.cursor,
      all: o.all || o.maxItems !== undefined,
      maxItems: o.maxItems,
      onPage: (page) => {
        lastPage = page
      },
    },
    async show(out, items, columns, known) {
      await out.list(items, columns, known)
      // Never with --all (or --max-items, which follows pages): the list is whole, or cut by choice.
      if (lastPage && !o.all && o.maxItems === undefined) out.page(lastPage)
    },
  }
}

/** One resource of an answer, after the API's warning (on stderr) when it sent one. */
export async function showAnswer(out: Output, res: {warning?: string | null; data: object}, columns: Column[], known?: Column[]): Promise<void> {
  if (res.warning) out.warn(res.warning)
  await out.resource(res.data as Record<string, unknown>, columns, known)
}
