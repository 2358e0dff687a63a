/** Text helpers shared by every room. */

/** One line of at most `n` characters: tags and runs of whitespace collapsed. */
export function oneLine(s: string, n: number): string {
  const flat = s.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()
  return flat.length > n ? `${flat.slice(0, n)}…` : flat
}

/** "1 row", "2 rows" (or the plural given). */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Line numbers as ranges: "2, 5-7, 9" (the first 20 ranges, then "and more"). */
export function describeLines(lines: number[]): string {
  const out: string[] = []
  const sorted = [...lines].sort((a, b) => a - b)
  for (let i = 0; i < sorted.length; i++) {
    let j = i
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++
    out.push(j > i ? `${sorted[i]}-${sorted[j]}` : String(sorted[i]))
    i = j
  }
  return out.length > 20 ? `${out.slice(0, 20).join(', ')} and more` : out.join(', ')
}
