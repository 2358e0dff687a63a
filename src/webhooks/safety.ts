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

/** Text from an event made safe for a terminal line (shared with the output layer's streams). */
export {escapeControls} from '../output/safe.js'
