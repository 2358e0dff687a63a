/**
 * The plan cache: a batch's validated and keyed plan (its first-run RowTable: lines, amounts,
 * currencies, sources, destinations, content hashes, key digests and each row's byte offset),
 * written beside the file as `FILE.payops-plan` (mode 0600, through a temporary file and a rename)
 * when a run starts sending, and removed when the batch finishes. A resume loads it instead of
 * reading and validating the whole file again, when it was computed from this very file (same
 * size and SHA-256), with the same default currency, for the journal's batch, by this format; and
 * its own bytes are intact (a SHA-256 of its body). It is only a cache: anything else and the file
 * is read and validated again.
 */
import {createHash} from 'node:crypto'
import {closeSync, existsSync, fsyncSync, openSync, readSync, renameSync, rmSync, statSync, writeSync} from 'node:fs'
import {endianness} from 'node:os'
import {RowTable, offsetsOf, type TableData} from './table.js'

const MAGIC = 'PAYOPS-PLAN\n'
/** Bumped whenever what the plan holds, or how rows are validated and keyed, changes. */
const VERSION = 3

/** What a plan was computed from. */
export interface PlanSource {
  fileSha256: string
  defaultCurrency: string
  batchId: string
}

interface Header {
  version: number
  endian: string
  file_size: number
  file_sha256: string
  default_currency: string
  batch_id: string
  rows: number
  header_line: number
  delimiter: string[]
  ids: string[]
  currencies: string[]
  other_keys: Array<[number, string]>
  /** Bytes of an amount (4 or 8) and of a subaccount number (2 or 4): see RowTable. */
  amount_bytes: number
  id_bytes: number
  body_sha256: string
}

export function planCachePath(file: string): string {
  return `${file}.payops-plan`
}

/** The arrays of the body, in order, with their element sizes (each `rows` long but the offsets, see offsetsOf; amount, from and to as the header says). */
const ARRAYS = [
  ['offset', 8],
  ['amount', 0],
  ['line', 4],
  ['from', 0],
  ['to', 0],
  ['currency', 2],
  ['given', 1],
  ['fp', 16],
  ['digest', 16],
] as const

const pad8 = (n: number) => (n + 7) & ~7

/** Elements of array `name` in a plan of `rows` rows. */
const countOf = (name: (typeof ARRAYS)[number][0], rows: number) => (name === 'offset' ? offsetsOf(rows) : rows)

function bytesOf(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength)
}

/** Writes the plan of `table` (see RowTable.dump); false when it could not be written (nothing is left behind then). */
export function writePlanCache(file: string, table: RowTable, from: PlanSource): boolean {
  const path = planCachePath(file)
  const tmp = `${path}.${process.pid}.tmp`
  try {
    const d = table.dump()
    const body: Buffer[] = []
    for (const [name] of ARRAYS) {
      const b = bytesOf(d[name])
      body.push(b)
      const gap = pad8(b.length) - b.length
      if (gap) body.push(Buffer.alloc(gap))
    }
    const sha = createHash('sha256')
    for (const b of body) sha.update(b)
    const header: Header = {
      version: VERSION,
      endian: endianness(),
      file_size: statSync(file).size,
      file_sha256: from.fileSha256,
      default_currency: from.defaultCurrency,
      batch_id: from.batchId,
      rows: d.length,
      header_line: d.headerLine,
      delimiter: d.delimiter,
      ids: d.ids,
      currencies: d.currencies,
      other_keys: d.otherKeys,
      amount_bytes: d.amount.BYTES_PER_ELEMENT,
      id_bytes: d.from.BYTES_PER_ELEMENT,
      body_sha256: sha.digest('hex'),
    }
    const json = Buffer.from(JSON.stringify(header))
    const head = Buffer.alloc(pad8(MAGIC.length + 4 + json.length))
    head.write(MAGIC, 0, 'latin1')
    head.writeUInt32LE(json.length, MAGIC.length)
    json.copy(head, MAGIC.length + 4)
    const fd = openSync(tmp, 'w', 0o600)
    try {
      for (const b of [head, ...body]) writeSync(fd, b)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
    return true
  } catch {
    rmSync(tmp, {force: true})
    return false
  }
}

export function removePlanCache(file: string): void {
  rmSync(planCachePath(file), {force: true})
}

function readAt(fd: number, length: number, position: number): Buffer {
  const b = Buffer.allocUnsafe(length)
  let got = 0
  while (got < length) {
    const n = readSync(fd, b, got, length - got, position + got)
    if (n === 0) throw new Error('short read')
    got += n
  }
  return b
}

/** SHA-256 of a file, read in large pieces. */
export function sha256OfFile(path: string): string {
  const fd = openSync(path, 'r')
  try {
    const sha = createHash('sha256')
    const chunk = Buffer.allocUnsafe(1 << 20)
    for (let pos = 0; ; ) {
      const n = readSync(fd, chunk, 0, chunk.length, pos)
      if (n === 0) break
      sha.update(chunk.subarray(0, n))
      pos += n
    }
    return sha.digest('hex')
  } finally {
    closeSync(fd)
  }
}

/**
 * The plan cached for `file`, when it was computed from the file as it is now, with this default
 * currency, for this batch (and its bytes are intact): a first-run table (every row fresh and
 * pending) and the file's SHA-256. Undefined otherwise.
 */
export function readPlanCache(file: string, defaultCurrency: string, batchId: string): {table: RowTable; fileSha256: string} | undefined {
  const path = planCachePath(file)
  if (!existsSync(path)) return undefined
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch {
    return undefined
  }
  try {
    const size = statSync(path).size
    const start = readAt(fd, MAGIC.length + 4, 0)
    if (start.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined
    const jsonLength = start.readUInt32LE(MAGIC.length)
    if (MAGIC.length + 4 + jsonLength > size) return undefined
    const h = JSON.parse(readAt(fd, jsonLength, MAGIC.length + 4).toString('utf8')) as Header
    if (h.version !== VERSION || h.endian !== endianness() || h.batch_id !== batchId || h.default_currency !== defaultCurrency) return undefined
    if (statSync(file).size !== h.file_size) return undefined
    const n = h.rows
    const bodyAt = pad8(MAGIC.length + 4 + jsonLength)
    if ((h.amount_bytes !== 4 && h.amount_bytes !== 8) || (h.id_bytes !== 2 && h.id_bytes !== 4)) return undefined
    const sizeOf = (name: (typeof ARRAYS)[number][0], k: number) => (name === 'amount' ? h.amount_bytes : name === 'from' || name === 'to' ? h.id_bytes : k)
    const bodyLength = ARRAYS.reduce((s, [name, k]) => s + pad8(countOf(name, n) * sizeOf(name, k)), 0)
    if (bodyAt + bodyLength !== size) return undefined
    const fileSha256 = sha256OfFile(file)
    if (fileSha256 !== h.file_sha256) return undefined
    // Its own byte offset is 0 (a large buffer is not pooled), so every array is aligned.
    const body = readAt(fd, bodyLength, bodyAt)
    if (createHash('sha256').update(body).digest('hex') !== h.body_sha256) return undefined
    const at: Record<string, number> = {}
    let pos = 0
    for (const [name, k] of ARRAYS) {
      at[name] = pos
      pos += pad8(countOf(name, n) * sizeOf(name, k))
    }
    const view = <T>(make: new (b: ArrayBuffer, o: number, l: number) => T, name: (typeof ARRAYS)[number][0], k: number): T => {
      const o = body.byteOffset + at[name]
      const count = countOf(name, n)
      if (o % k === 0) return new make(body.buffer as ArrayBuffer, o, count)
      const copy = new ArrayBuffer(count * k)
      new Uint8Array(copy).set(body.subarray(at[name], at[name] + count * k))
      return new make(copy, 0, count)
    }
    const data: TableData = {
      length: n,
      offset: view(Float64Array, 'offset', 8),
      amount: h.amount_bytes === 8 ? view(Float64Array, 'amount', 8) : view(Uint32Array, 'amount', 4),
      line: view(Uint32Array, 'line', 4),
      from: h.id_bytes === 4 ? view(Uint32Array, 'from', 4) : view(Uint16Array, 'from', 2),
      to: h.id_bytes === 4 ? view(Uint32Array, 'to', 4) : view(Uint16Array, 'to', 2),
      currency: view(Uint16Array, 'currency', 2),
      given: view(Uint8Array, 'given', 1),
      fp: body.subarray(at.fp, at.fp + 16 * n),
      digest: body.subarray(at.digest, at.digest + 16 * n),
      ids: h.ids,
      currencies: h.currencies,
      otherKeys: h.other_keys,
      headerLine: h.header_line,
      delimiter: h.delimiter,
    }
    return {table: RowTable.restore(batchId, data), fileSha256}
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}
