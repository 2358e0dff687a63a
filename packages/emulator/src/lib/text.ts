/** Small text helpers of the emulator's own messages. */

/** "1 problem", "2 problems" (or the plural given). */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Runs of whitespace as one space, trimmed: a message of one line. */
export const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim()
