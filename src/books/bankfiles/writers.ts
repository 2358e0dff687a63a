/** The writer of each bank file format `report statement --format` offers (OFX is written by ../ofx.ts). */
import type {Statement} from '../statement.js'
import {writeBai2} from './bai2-write.js'
import {writeCamt053} from './camt-write.js'
import type {StatementFormat} from './formats.js'
import {writeMt940} from './mt940-write.js'

export const BANK_FILE_WRITERS: Record<Exclude<StatementFormat, 'ofx'>, (s: Statement, nowIso: string) => string> = {
  camt053: writeCamt053,
  bai2: writeBai2,
  mt940: writeMt940,
}
