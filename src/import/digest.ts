/**
 * The identity of a payroll: SHA-256 of its normalised rows. Normalised means the validated rows
 * in file order, each as its content (source, destination, amount in minor units, currency,
 * auto_approve, metadata: the row's fingerprint) and its idempotency_key cell, never the file's
 * bytes: the same rows saved again with other line endings, quoting, decimal
 * amounts for minor units, or blank lines are the same payroll. Line numbers are not part of it.
 */
import {createHash, type Hash} from 'node:crypto'
import type {ImportRow} from './csv.js'

export class RowsDigest {
  private readonly hash: Hash = createHash('sha256').update('payops-import-rows-v1\n')

  add(row: Pick<ImportRow, 'fingerprint' | 'idempotency_key'>): void {
    this.hash.update(`${JSON.stringify([row.idempotency_key ?? null, row.fingerprint])}\n`)
  }

  hex(): string {
    return this.hash.digest('hex')
  }
}

/** How a batch is named to an operator: the first 12 hex digits of its rows' digest. */
export const digestPrefix = (digest: string) => digest.slice(0, 12)
