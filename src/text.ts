/** Text helpers shared by every room. */

/** One line of at most `n` characters: tags and runs of whitespace collapsed. */
export function oneLine(s: string, n: number): string {
  const flat = s.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()
  return flat.length > n ? `${flat.slice(0, n)}…` : flat
}
