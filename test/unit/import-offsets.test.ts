/**
 * The send pass of a resume reads the file from the first row not done (its byte offset and the
 * line before it, with the file's record delimiter): the rows read from there must be the rows,
 * and lines, that reading the whole file gives, whatever the file's line endings, BOM, quoting,
 * blank lines and multi-line cells.
 */
import fc from 'fast-check'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {streamImportCsv, type ImportRow, type ResumePoint, type StreamedFile} from '../../src/import/csv.js'

const A = '11111111-1111-4111-8111-111111111111'
const B = '22222222-2222-4222-8222-222222222222'
const dir = mkdtempSync(join(tmpdir(), 'payops-import-offsets-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))
let files = 0

async function read(file: string, from?: ResumePoint): Promise<{rows: ImportRow[]; out: StreamedFile}> {
  const out: StreamedFile = {errors: [], rows: 0, sha256: ''}
  const rows: ImportRow[] = []
  for await (const r of streamImportCsv(file, 'USD', out, from)) rows.push(r)
  return {rows, out}
}

const strip = ({offset: _o, ...r}: ImportRow) => r

describe('reading a file again from a row', () => {
  it('gives the rows and lines of the whole file from that row on', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          eol: fc.constantFrom('\n', '\r\n', '\r'),
          bom: fc.boolean(),
          rows: fc.array(
            fc.record({
              amount: fc.integer({min: 1, max: 999}),
              // Cells that need quotes: commas, quotes, line breaks of any kind.
              ref: fc.constantFrom('', 'plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', '  padded  ', 'é ü'),
              quoted: fc.boolean(),
              blankBefore: fc.nat({max: 2}),
            }),
            {minLength: 1, maxLength: 12},
          ),
          finalEol: fc.boolean(),
        }),
        async ({eol, bom, rows, finalEol}) => {
          const cell = (s: string, q: boolean) => (q || /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s)
          const lines = rows.map((r) => `${eol.repeat(r.blankBefore)}${A},${B},${r.amount},${cell(r.ref, r.quoted)}`)
          const text = (bom ? '\ufeff' : '') + ['from,to,amount_in_minor_units,metadata.ref', ...lines].join(eol) + (finalEol ? eol : '')
          const file = join(dir, `o${++files}.csv`)
          writeFileSync(file, text)
          const whole = await read(file)
          fc.pre(whole.out.errors.length === 0)
          expect(whole.rows).toHaveLength(rows.length)
          for (let i = 1; i < whole.rows.length; i++) {
            const from = {offset: whole.rows[i].offset!, line: whole.rows[i - 1].line, delimiter: whole.out.delimiter!}
            const rest = await read(file, from)
            expect(rest.out.errors).toEqual([])
            expect(rest.rows.map(strip)).toEqual(whole.rows.slice(i).map(strip))
          }
        },
      ),
      {numRuns: 150},
    )
  })
})
