/** The names of the bank file formats, read by commands at start-up (no reader or writer loaded). */
import type {BankFileFormat} from './types.js'

/** What `report statement --format` writes. */
export const STATEMENT_FORMATS = ['ofx', 'camt053', 'bai2', 'mt940'] as const
export type StatementFormat = (typeof STATEMENT_FORMATS)[number]

export const FORMAT_NAMES: Record<BankFileFormat, string> = {bai2: 'BAI2', 'camt.052': 'camt.052', 'camt.053': 'camt.053', 'camt.054': 'camt.054', mt940: 'MT940'}
