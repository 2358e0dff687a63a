/** Guards for untrusted event content: nesting depth before parsing, control characters before printing. */

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * The greatest nesting depth of the JSON text in `raw` (the outermost object or array is 1),
 * found by one pass over the bytes without parsing: strings are skipped, so brackets inside them
 * do not count. It stops as soon as the depth passes `stopAbove` and returns that depth. Works on
 * malformed text too (the parser rejects that afterwards).
 */
export function jsonDepth(raw: Uint8Array, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
      continue
    }
    if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++
      if (depth > max) {
        max = depth
        if (max > stopAbove) return max
      }
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth--
  }
  return max
}

// C0 controls (ESC among them), DEL, C1 controls (CSI among them), line and paragraph separators,
// and the bidirectional overrides and isolates that reorder what a terminal shows.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * Text from an event made safe for a terminal line: every control character, ANSI escape
 * introducer and bidi override becomes a visible escape (`\x1b`, `\u202e`), so a signed event
 * cannot move the cursor, recolour, clear the screen or fake a line.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
