/**
 * JSON that keeps integers exact. `JSON.parse` turns an integer past 2^53 into the nearest float
 * (9007199254740993 becomes 9007199254740992), so an answer's totals would be one minor unit off:
 * `parseJson` reads such integers as BigInt instead (every other number as `JSON.parse` would),
 * and `toJson` writes BigInt values back as plain JSON integers, digit for digit.
 *
 * A text with no run of 16 digits cannot hold an unsafe integer, and goes to `JSON.parse` as it is;
 * otherwise lossless-json parses it (the same on every Node version). One difference remains in
 * that case: an object with a duplicate key is refused rather than the last value kept.
 */
import {isInteger, parse as losslessParse, stringify as losslessStringify} from 'lossless-json'

const LONG_DIGITS = /\d{16}/

function exactNumber(text: string): number | bigint {
  const n = Number(text)
  return Number.isSafeInteger(n) || !isInteger(text) ? n : BigInt(text)
}

/** `JSON.parse`, with integers past Number.MAX_SAFE_INTEGER (either sign) read exactly as BigInt. */
export function parseJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text)
  return losslessParse(text, null, exactNumber)
}

/** `JSON.stringify`, writing BigInt values as JSON integers (no quotes, no rounding). */
export function toJson(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent)
  } catch (err) {
    // The one TypeError besides a cycle: a BigInt, which JSON.stringify does not know.
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err
    return losslessStringify(value, null, indent) as string
  }
}

/** Whether a JSON value is an integer (a safe number or a BigInt read by `parseJson`). */
export function isJsonInteger(v: unknown): v is number | bigint {
  return typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))
}
