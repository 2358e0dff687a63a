/**
 * The record layer of BAI2 in: physical lines joined into logical records (88 continuations),
 * each split into its fields as the 2005 specification lays them out (a 16 record's text is
 * everything after its fixed fields), and the field readers the walk of ./bai2.ts uses. Any
 * departure is a Bai2Error naming the line and the record.
 */
import {normalizeCurrency} from '../../money.js'
import {MAX_BANK_FILE_LINE, fileText} from './types.js'

export const NAMES: Record<string, string> = {'01': 'file header', '02': 'group header', '03': 'account identifier', '16': 'transaction detail', '49': 'account trailer', '88': 'continuation', '98': 'group trailer', '99': 'file trailer'}

export interface Rec {
  type: string
  line: number
  fields: string[]
  /** A 16 record's text, with its continuations. */
  text: string
  /** How many 88 continuations it has. */
  more: number
}

export class Bai2Error extends Error {
  constructor(
    readonly line: number,
    readonly record: string,
    why: string,
  ) {
    super(why)
  }
}

export const fail = (r: {line: number; type: string}, why: string): never => {
  throw new Bai2Error(r.line, `${r.type} ${NAMES[r.type] ?? 'record'}`, why)
}

/** How many fields follow a funds type before the next field. */
export function fundsExtra(r: Rec, fields: string[], at: number): number {
  const f = (fields[at] ?? '').trim().toUpperCase()
  if (f === '' || f === '0' || f === '1' || f === '2' || f === 'Z') return 0
  if (f === 'V') return 2
  if (f === 'S') return 3
  if (f === 'D') {
    const n = Number(fields[at + 1])
    if (!/^\d+$/.test((fields[at + 1] ?? '').trim())) fail(r, `funds type D without a count of distributions`)
    return 1 + 2 * n
  }
  return fail(r, `unknown funds type "${f}"`)
}

/** A 16 record: type code, amount, funds type and its fields, bank reference, customer reference, then the text. */
function split16(r: Rec, raw: string): void {
  const parts = raw.split(',')
  // A record may end early with "/" (never inside the text): the fields left out are empty.
  const cut = (limit: number): boolean => {
    for (let i = 1; i < Math.min(parts.length, limit); i++) {
      const k = parts[i].indexOf('/')
      if (k >= 0) {
        parts[i] = parts[i].slice(0, k)
        parts.length = i + 1
        return true
      }
    }
    return false
  }
  let ended = cut(4)
  if (parts.length < 3) fail(r, 'too few fields')
  const fixed = 6 + fundsExtra(r, parts, 3)
  ended = ended || cut(fixed)
  if (parts.length < fixed) {
    if (!ended) fail(r, 'too few fields (its references must be on the record itself)')
    while (parts.length < fixed) parts.push('')
  }
  r.fields = parts.slice(0, fixed).map((s) => s.trim())
  r.text = parts.slice(fixed).join(',').replace(/\s+$/, '').replace(/\/$/, '')
}

/** Logical records, continuations joined; physical lines checked for length. */
export function* records(text: string): Generator<Rec> {
  let cur: Rec | undefined
  let n = 0
  let start = 0
  let ended = false
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    n++
    const raw = text.slice(start, end).replace(/\r$/, '').replace(/\s+$/, '')
    start = end + 1
    if (raw.length > MAX_BANK_FILE_LINE) throw new Bai2Error(n, 'record', `longer than ${MAX_BANK_FILE_LINE} characters`)
    if (raw === '') {
      if (end === text.length) break
      continue
    }
    if (ended) throw new Bai2Error(n, 'record', 'something follows the 99 file trailer')
    const type = raw.slice(0, 2)
    if (raw[2] !== ',' || !NAMES[type]) throw new Bai2Error(n, 'record', `"${raw.slice(0, 12)}" does not start with a BAI2 record code (01, 02, 03, 16, 49, 88, 98, 99) and a comma`)
    if (type === '88') {
      if (!cur) throw new Bai2Error(n, '88 continuation', 'continues nothing')
      const more = raw.slice(3)
      if (cur.type === '16') cur.text = `${cur.text} ${more.replace(/\/$/, '')}`.trim()
      else cur.fields.push(...more.replace(/\/.*$/, '').split(',').map((s) => s.trim()))
      cur.more++
      continue
    }
    if (cur) yield cur
    cur = {type, line: n, fields: [], text: '', more: 0}
    if (type === '16') split16(cur, raw)
    else {
      if (!raw.includes('/')) fail(cur, 'does not end with "/"')
      cur.fields = raw.replace(/\/.*$/, '').split(',').map((s) => s.trim())
    }
    if (type === '99') ended = true
  }
  if (cur) yield cur
}

export const CREDIT = (code: number) => code >= 100 && code <= 399
export const DEBIT = (code: number) => code >= 400 && code <= 699

export function day(r: Rec, yymmdd: string, what: string): string {
  const m = /^(\d{2})(\d{2})(\d{2})$/.exec(yymmdd)
  const s = m ? `20${m[1]}-${m[2]}-${m[3]}` : ''
  const d = new Date(`${s}T00:00:00Z`)
  if (!m || Number.isNaN(d.getTime()) || !d.toISOString().startsWith(s)) fail(r, `${what} "${yymmdd}" is not a date YYMMDD`)
  return s
}

export function amount(r: Rec, raw: string, what: string, signed: boolean): bigint {
  const s = raw.trim()
  if (s === '') return 0n
  if (!(signed ? /^[+-]?\d+$/ : /^\d+$/).test(s)) fail(r, `${what} "${s.slice(0, 30)}" is not a whole number of minor units`)
  return BigInt(s)
}

export function currencyOf(r: Rec, code: string, fallback: string): string {
  if (code.trim() === '') return fallback
  try {
    return normalizeCurrency(code)
  } catch {
    return fail(r, `currency "${code.slice(0, 10)}" is not an ISO 4217 code`)
  }
}

export function counterparty(text: string): {description: string | null; tag: 'ORIG' | 'BNF' | null; name: string | null} {
  const m = /(?:^|[;\s])(ORIG|BNF):\s*([^;]*)/i.exec(text)
  if (!m) return {description: fileText(text), tag: null, name: null}
  const rest = (text.slice(0, m.index) + text.slice(m.index + m[0].length)).replace(/^;\s*|;\s*$/g, '')
  return {description: fileText(rest), tag: m[1].toUpperCase() as 'ORIG' | 'BNF', name: fileText(m[2], 200)}
}
