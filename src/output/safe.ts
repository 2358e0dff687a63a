/**
 * The one rule for text from outside (server answers, files, the names book, a receiver's answer):
 * on a terminal it is shown, never obeyed. Every human output path (table cells, sentences, notes,
 * warnings, errors, hints, prompts, progress, the spinner) passes its text through here; machine
 * formats keep the data exact (JSON escapes with JSON's own `\uXXXX`, CSV cells are guarded
 * against spreadsheet formulas).
 */
import {randomBytes} from 'node:crypto'
import {toJson} from '../json.js'
import {UNSAFE_CHARS} from '../text.js'

// The characters that never reach a terminal as they are: see UNSAFE_CHARS in src/text.ts.
const UNSAFE = UNSAFE_CHARS

/** One character as a visible escape: `\x1b`, `\u202e`, `\u{e0001}`. */
function visible(ch: string): string {
  const code = ch.codePointAt(0)!
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`
  return `\\u{${code.toString(16)}}`
}

/**
 * Text from outside made safe to show on a terminal: every control character (newlines too),
 * C1 control, bidi override or isolate, invisible format character and lone surrogate becomes a
 * visible escape (`\x1b`, `\u202e`), so that the text cannot move the cursor, recolour, clear the
 * screen, retitle the window, reorder what is shown or fake a line. Everything else is untouched.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, visible)
}

// The colour codes of our own paint carry a marker no outside text can hold (random per process,
// made of private-use characters the rule above leaves alone): where our text meets outside text
// in one sentence, the human writers below let exactly these codes through and escape every other.
const MARK = Array.from(randomBytes(8), (b) => String.fromCharCode(0xe000 + b)).join('')
const MARKED_SGR = new RegExp(`${MARK}\\[([0-9;]*)m`, 'g')

/** A colour code of our own paint (`\x1b[31m`), marked so that the human writers let it pass. */
export function trustedSgr(code: string): string {
  // eslint-disable-next-line no-control-regex -- our own SGR codes are what is marked
  return code.replace(/\u001b\[/g, `${MARK}[`)
}

/** Our marked colour codes back to real ones (text that has already been through the rule). */
function unmark(text: string): string {
  return text.includes(MARK) ? text.replace(MARKED_SGR, '\u001b[$1m') : text
}

/**
 * One line a human reads (a sentence, a note, a warning, an error, a prompt), composed by our code
 * with values from outside in it: every unsafe character is escaped, a newline inside too (a value
 * never starts a line), and only the colour codes of our own paint pass.
 */
export function terminalLine(text: string): string {
  return unmark(escapeControls(text))
}

/**
 * Lines a human reads: an array is one line per element (the only newlines that pass are the
 * ones our code puts between them); a string is one line, a single trailing newline allowed.
 */
export function terminalLines(message: string | readonly string[]): string {
  const lines = typeof message === 'string' ? [message.endsWith('\n') ? message.slice(0, -1) : message] : message
  return lines.map(terminalLine).join('\n') + '\n'
}

// What JSON.stringify leaves raw though a terminal would obey it (it escapes C0 and lone
// surrogates itself, and its own newlines are structure): DEL, C1, format characters, U+2028 and
// U+2029. They can only stand inside JSON strings, where `\uXXXX` is the same character to every parser.
const JSON_UNSAFE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu

/** JSON.stringify, with every character a terminal would obey written as JSON's `\uXXXX` escape: the data stays exact. */
export function safeJson(value: unknown, indent?: number): string {
  // Integers past 2^53 (BigInt from the client's exact parser) are written as JSON integers.
  const text = toJson(value, indent) ?? 'null'
  // An astral format character (tags, U+E0001...) is written as its surrogate pair, as JSON spells it.
  return text.replace(JSON_UNSAFE, (ch) => Array.from({length: ch.length}, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''))
}

/**
 * A CSV cell guarded against spreadsheet formula injection, as OWASP advises: a cell that begins
 * with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with a single quote, so a
 * spreadsheet shows it as text. A plain number (`-12.34`, `+5`, `1e3`) and a money cell as payops
 * writes it (`-12.34 USD`) are not formulas and stay as they are, so negative amounts remain
 * numbers to sort and sum.
 */
export function guardCsvCell(text: string): string {
  if (!/^[=+\-@\t\r]/.test(text)) return text
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?( [A-Z]{3})?$/.test(text)) return text
  return `'${text}`
}
