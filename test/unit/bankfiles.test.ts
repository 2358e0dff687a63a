/** The bank file readers on files as banks write them (not as payops does): every field mapped, every malformation named. */
import {describe, expect, it} from 'vitest'
import {contentDigest, readBankFile, sniff} from '../../src/books/bankfiles/index.js'
import {UsageError} from '../../src/errors.js'

const read = (text: string, name = 'f') => readBankFile(Buffer.from(text), name)
const refusal = (text: string): string => {
  try {
    read(text)
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError)
    return (err as Error).message
  }
  throw new Error('not refused')
}

// Two accounts; funds type V (value date and time), a continuation, a record ended early with "/".
const BAI2 = [
  '01,122099999,123456789,260302,0400,7,80,,2/',
  '02,123456789,122099999,1,260301,2400,USD,2/',
  '03,00012345678,,010,+500000,,,015,+410000,,/',
  '16,165,25000,V,260301,0800,BR1001,CR77,ACH CREDIT',
  '88,ORIG: ACME CORP; PAYROLL REFUND',
  '16,475,115000,0,BR1002,,CHECK PAID/',
  '16,451,300,0/',
  '49,1050300,6/',
  '03,999999990001,EUR,010,100,,/',
  '49,100,2/',
  '98,1050400,2,10/',
  '99,1050400,1,12/',
].join('\r\n')

describe('BAI2 in', () => {
  it('maps each record: the group\'s day, direction by type code, references, counterparty, both balances', () => {
    const f = read(BAI2)
    expect(f).toMatchObject({format: 'bai2', statement_id: '122099999/260302/7'})
    expect(f.accounts).toEqual([
      {number: '00012345678', currency: 'USD', lines: 3, from: '2026-03-01', to: '2026-03-01', opening_balance_in_minor_units: 500000, closing_balance_in_minor_units: 410000},
      {number: '999999990001', currency: 'EUR', lines: 0, from: null, to: null, opening_balance_in_minor_units: 100, closing_balance_in_minor_units: null},
    ])
    const lines = [...f.lines('00012345678')]
    expect(lines[0]).toEqual({id: 'BR1001', transaction_date: '2026-03-01', direction: 'credit', amount_in_minor_units: 25000, currency_code: 'USD', sender_info: 'ACME CORP', receiver_info: null, description: 'ACH CREDIT; PAYROLL REFUND'})
    expect(lines[1]).toMatchObject({id: 'BR1002', direction: 'debit', amount_in_minor_units: 115000, description: 'CHECK PAID', sender_info: null})
    // No reference at all: the file's id and the line.
    expect(lines[2]).toMatchObject({id: '122099999/260302/7-7', direction: 'debit', amount_in_minor_units: 300, description: null})
    expect([...f.lines('999999990001')]).toEqual([])
  })

  it('text is data: control and bidi characters never reach a line', () => {
    const f = read(BAI2.replace('CHECK PAID/', 'CHECK\u001b[2J PAID\u202e/'))
    expect([...f.lines('00012345678')][1].description).toBe('CHECK [2J PAID')
  })

  it('refuses a malformed file with one line naming the record and the line', () => {
    const cases: Array<[string, RegExp]> = [
      [BAI2.replace('49,1050300,6/', '49,1050301,6/'), /line 8 \(49 account trailer\): control total 1050301 does not equal the sum of the amounts it covers, 1050300/],
      [BAI2.replace('49,1050300,6/', '49,1050300,5/'), /line 8 \(49 account trailer\): says 5 records, there are 6/],
      [BAI2.replace('99,1050400,1,12/', '99,1050400,1,11/'), /line 12 \(99 file trailer\): says 11 records, there are 12/],
      [BAI2.replace('16,475,115000', '16,475,11500O'), /line 6 \(16 transaction detail\): the amount "11500O" is not a whole number/],
      [BAI2.replace('16,475', '16,07X'), /line 6 \(16 transaction detail\): type code "07X"/],
      [BAI2.replace('260301,2400', '260231,2400'), /line 2 \(02 group header\): the as-of date "260231" is not a date/],
      [BAI2.replace(',USD,2/', ',XYZ,2/'), /line 2 \(02 group header\): currency "XYZ"/],
      [BAI2.replace('16,165,25000,V,', '16,165,25000,Q,'), /line 4 \(16 transaction detail\): unknown funds type "Q"/],
      [BAI2.split('\r\n').slice(0, 11).join('\n'), /the 99 file trailer is missing/],
      [`${BAI2}\r\n16,165,1,0,,,`, /line 13 \(record\): something follows the 99 file trailer/],
      [BAI2.replace('ACH CREDIT', 'X'.repeat(2000)), /line 4 \(record\): longer than 1024 characters/],
      [BAI2.replace('98,1050400,2,10/', ''), /line 12 \(99 file trailer\): the file ends inside a group/],
    ]
    for (const [text, want] of cases) {
      const msg = refusal(text)
      expect(msg).toMatch(/^f is not a well-formed BAI2 file: /)
      expect(msg).toMatch(want)
      expect(msg).not.toContain('\n')
    }
  })
})

const CAMT052 = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02">
  <BkToCstmrAcctRpt>
    <GrpHdr><MsgId>RPT-20260302-1</MsgId><CreDtTm>2026-03-02T10:00:00</CreDtTm></GrpHdr>
    <Rpt>
      <Id>R1</Id>
      <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Dt><Dt>2026-03-02</Dt></Dt></Bal>
      <Ntry>
        <Amt Ccy="EUR">12.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
        <BookgDt><DtTm>2026-03-02T09:00:00</DtTm></BookgDt><ValDt><Dt>2026-03-03</Dt></ValDt>
        <AcctSvcrRef>A1</AcctSvcrRef>
        <NtryDtls><TxDtls><RltdPties><Dbtr><Nm>Fish &amp; Chips</Nm></Dbtr></RltdPties><RmtInf><Ustrd>INV 7</Ustrd></RmtInf></TxDtls></NtryDtls>
      </Ntry>
      <Ntry>
        <Amt Ccy="EUR">3</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>PDNG</Sts><ValDt><Dt>2026-03-02</Dt></ValDt>
      </Ntry>
      <Ntry>
        <NtryRef>N2</NtryRef><Amt Ccy="EUR">0.10</Amt><CdtDbtInd>DBIT</CdtDbtInd><ValDt><Dt>2026-03-02</Dt></ValDt><AddtlNtryInf>CHARGES</AddtlNtryInf>
      </Ntry>
    </Rpt>
  </BkToCstmrAcctRpt>
</Document>`

describe('camt in', () => {
  it('camt.052: booked entries only, exact amounts, booking day, references, the debtor of a credit; prefixes and layouts of other versions', () => {
    const f = read(CAMT052)
    expect(f).toMatchObject({format: 'camt.052', statement_id: 'RPT-20260302-1/R1'})
    expect(f.accounts).toEqual([{number: 'DE89370400440532013000', currency: 'EUR', lines: 2, from: '2026-03-02', to: '2026-03-02', opening_balance_in_minor_units: -100000, closing_balance_in_minor_units: null}])
    expect([...f.lines('DE89370400440532013000')]).toEqual([
      {id: 'A1', transaction_date: '2026-03-02', direction: 'credit', amount_in_minor_units: 1250, currency_code: 'EUR', sender_info: 'Fish & Chips', receiver_info: null, description: 'INV 7'},
      {id: 'N2', transaction_date: '2026-03-02', direction: 'debit', amount_in_minor_units: 10, currency_code: 'EUR', sender_info: null, receiver_info: null, description: 'CHARGES'},
    ])
    const prefixed = CAMT052.replace(/<(\/?)(\w)/g, '<$1c:$2').replace('<c:Document xmlns=', '<c:Document xmlns:c=')
    expect([...read(prefixed).lines('DE89370400440532013000')]).toHaveLength(2)
  })

  it('camt.054 notifications are read too; a UUID written without dashes is read back with them', () => {
    const n = CAMT052.replace('camt.052.001.02', 'camt.054.001.08').replace(/BkToCstmrAcctRpt/g, 'BkToCstmrDbtCdtNtfctn').replace(/<(\/?)Rpt>/g, '<$1Ntfctn>').replace('<AcctSvcrRef>A1<', '<AcctSvcrRef>0f1e2d3c4b5a69788796a5b4c3d2e1f0<')
    const f = read(n)
    expect(f.format).toBe('camt.054')
    expect([...f.lines('DE89370400440532013000')][0].id).toBe('0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0')
  })

  it('refuses a DOCTYPE, broken XML and a bad entry, naming the line', () => {
    expect(refusal(CAMT052.replace('<Document', '<!DOCTYPE d [<!ENTITY x "y">]>\n<Document'))).toMatch(/line 2 \(DOCTYPE\): a camt message has no DOCTYPE/)
    expect(refusal(CAMT052.replace('</Rpt>', ''))).toMatch(/^f is not a well-formed XML file: line \d+ \(XML\): /)
    expect(refusal(CAMT052.replace('<Amt Ccy="EUR">12.50<', '<Amt Ccy="EUR">12.505<'))).toMatch(/line 9 \(Ntry\): amount "12.505" has more decimals than EUR has \(2\)/)
    expect(refusal(CAMT052.replace('<CdtDbtInd>CRDT</CdtDbtInd><Sts>', '<CdtDbtInd>X</CdtDbtInd><Sts>'))).toMatch(/line 9 \(Ntry\): CdtDbtInd "X" is neither CRDT nor DBIT/)
    expect(refusal(CAMT052.replace('<MsgId>RPT-20260302-1</MsgId>', ''))).toMatch(/GrpHdr: the message has no MsgId/)
  })
})

const MT940 = [
  '{1:F01BANKDEFFXXXX0000000000}{2:I940BANKDEFFXXXXN}{4:',
  ':20:STARTUMS',
  ':25:10020030/1234567890',
  ':28C:5/1',
  ':60F:C260301EUR1000,00',
  ':61:2603010301D12,5NMSCNONREF//B1',
  ':86:COFFEE SHOP',
  ':61:260302RC5,NTRFREF123',
  ':86:/ORDP/JOHN DOE/REMI/REFUND',
  ':62F:C260302EUR982,50',
  '-}',
].join('\r\n')

describe('MT940 in', () => {
  it('maps :61: and :86:: entry date, D/C and reversals, exact amounts, references, structured tags', () => {
    const f = read(MT940)
    expect(f).toMatchObject({format: 'mt940', statement_id: 'STARTUMS-5-1'})
    expect(f.accounts).toEqual([{number: '10020030/1234567890', currency: 'EUR', lines: 2, from: '2026-03-01', to: '2026-03-02', opening_balance_in_minor_units: 100000, closing_balance_in_minor_units: 98250}])
    expect([...f.lines('10020030/1234567890')]).toEqual([
      {id: 'B1', transaction_date: '2026-03-01', direction: 'debit', amount_in_minor_units: 1250, currency_code: 'EUR', sender_info: null, receiver_info: null, description: 'COFFEE SHOP'},
      {id: 'REF123', transaction_date: '2026-03-02', direction: 'debit', amount_in_minor_units: 500, currency_code: 'EUR', sender_info: null, receiver_info: null, description: 'REFUND'},
    ])
  })

  it('refuses a statement that does not add up, naming its :20: line', () => {
    expect(refusal(MT940.replace('982,50', '982,51'))).toMatch(/^f is not a well-formed MT940 file: line 2 \(statement 1\): /)
  })
})

describe('recognising files', () => {
  it('by content, not by name; anything else is refused with its first characters escaped', () => {
    expect(sniff(BAI2)).toBe('bai2')
    expect(sniff(`\uFEFF${CAMT052}`)).toBe('camt')
    expect(sniff(MT940)).toBe('mt940')
    expect(sniff(':20:X\n:25:Y\n')).toBe('mt940')
    expect(sniff('OFXHEADER:100')).toBeUndefined()
    expect(refusal('\u001b]0;x\u0007hello')).toMatch(/^f is not a BAI2, camt\.052\/053\/054 or MT940 file \(it begins "\]0;x hello"\)/)
  })

  it('the digest ignores line endings, trailing spaces and blank lines, and nothing else', () => {
    expect(contentDigest(BAI2)).toBe(contentDigest(`${BAI2.replace(/\r\n/g, '  \n')}\n\n`))
    expect(contentDigest(BAI2)).not.toBe(contentDigest(BAI2.replace('ACME', 'ACNE')))
  })
})
