/**
 * A payroll's identity is the digest of its normalised rows: the validated rows in order, not the
 * file's bytes. The same rows saved again (line endings, quoting, blank lines, spaces, a decimal
 * amount for minor units) are the same payroll; other rows, or the same rows in another order, are not.
 */
import {describe, expect, it} from 'vitest'
import {parseImportCsv} from '../../src/import/csv.js'
import {RowsDigest} from '../../src/import/digest.js'

const A = '0b6f2b1e-6c1a-4c57-9a64-1f7f3f1f0a01'
const B = '7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f'

function digestOf(text: string): string {
  const parsed = parseImportCsv(text, 'USD')
  expect(parsed.errors).toEqual([])
  const d = new RowsDigest()
  for (const r of parsed.rows) d.add(r)
  return d.hex()
}

describe('the digest of an import\'s rows', () => {
  const original = `from,to,amount\n${A},${B},10.00\n${A},${B},20.50\n`

  it('is the same for the same rows saved again', () => {
    const resaved = `"from","to","amount_in_minor_units"\r\n\r\n"${A}", "${B}" ,"1000"\r\n\r\n"${A}","${B}","2050"\r\n`
    expect(digestOf(resaved)).toBe(digestOf(original))
    expect(digestOf(original)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('differs for another amount, another order, a row more, or an idempotency_key cell', () => {
    const base = digestOf(original)
    expect(digestOf(`from,to,amount\n${A},${B},10.00\n${A},${B},20.51\n`)).not.toBe(base)
    expect(digestOf(`from,to,amount\n${A},${B},20.50\n${A},${B},10.00\n`)).not.toBe(base)
    expect(digestOf(`${original}${A},${B},10.00\n`)).not.toBe(base)
    expect(digestOf(`from,to,amount,idempotency_key\n${A},${B},10.00,k-1\n${A},${B},20.50,k-2\n`)).not.toBe(base)
  })
})
