/** Text from outside (a signed event, a receiver's answer) made safe to show on a terminal. */

// C0 controls (ESC among them), DEL, C1 controls (CSI among them), line and paragraph separators,
// and the bidirectional overrides and isolates that reorder what a terminal shows.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * Every control character, ANSI escape introducer and bidi override becomes a visible escape
 * (`\x1b`, `\u202e`), so that the text cannot move the cursor, recolour, clear the screen or fake
 * a line.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
