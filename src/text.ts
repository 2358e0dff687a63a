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

// Unicode classes, so that nothing of a kind is missed: Cc (C0 controls, ESC and CR among them;
// DEL; C1 controls, CSI U+009B among them), Cf (format characters: the bidi overrides and isolates
// U+202A–U+202E and U+2066–U+2069, the zero-width characters U+200B–U+200F, U+FEFF, the soft
// hyphen U+00AD, U+061C, tag characters...), Zl and Zp (U+2028, U+2029) and Cs (a lone surrogate).
export const UNSAFE_CHARS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

/** Whether text holds a character of UNSAFE_CHARS (names payops keeps refuse them). */
export function hasUnsafeChars(text: string): boolean {
  return new RegExp(UNSAFE_CHARS.source, 'u').test(text)
}

/** The text with every character of UNSAFE_CHARS replaced (formats that cannot escape them, such as OFX). */
export function replaceUnsafeChars(text: string, by = ' '): string {
  return text.replace(UNSAFE_CHARS, by)
}
