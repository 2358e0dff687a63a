/**
 * A second BAI2 reader, for tests only: no BAI2 parser is published on the npm registry, so the
 * files payops writes are read back by this one, written apart from src/books/bankfiles/bai2.ts
 * and straight from the 2005 specification (records split on "/" and ",", continuations joined
 * first), to prove that what payops writes is what the specification says.
 */
export interface Bai2Detail {
  typeCode: string
  amount: bigint
  bankReference: string
  text: string
}
export interface Bai2Account {
  asOf: string
  number: string
  currency: string
  /** Summary and status amounts by type code (010 opening ledger, 015 closing ledger). */
  amounts: Record<string, bigint>
  details: Bai2Detail[]
}
export interface Bai2File {
  sender: string
  fileId: string
  accounts: Bai2Account[]
  records: number
}

export function readBai2ForTest(text: string): Bai2File {
  // Continuations (88) joined to the record they continue.
  const physical = text.split(/\r?\n/).filter((l) => l.trim() !== '')
  const logical: string[] = []
  for (const l of physical) {
    if (l.startsWith('88,')) logical[logical.length - 1] += `,${l.slice(3)}`
    else logical.push(l)
  }
  const file: Bai2File = {sender: '', fileId: '', accounts: [], records: physical.length}
  let asOf = ''
  let groupCurrency = ''
  let current: Bai2Account | undefined
  let counted = 0
  for (const rec of logical) {
    const code = rec.slice(0, 2)
    if (code === '16') {
      const [, typeCode, amount, funds, bankReference, , ...text] = rec.split(',')
      if (funds !== 'Z') throw new Error(`funds type ${funds} not expected in a payops file`)
      current!.details.push({typeCode, amount: BigInt(amount), bankReference, text: text.join(',')})
      continue
    }
    const f = rec.replace(/\/\s*$/, '').split(',')
    if (code === '01') [file.sender, file.fileId] = [f[1], f[5]]
    if (code === '02') [asOf, groupCurrency] = [f[4], f[6]]
    if (code === '03') {
      current = {asOf, number: f[1], currency: f[2] || groupCurrency, amounts: {}, details: []}
      for (let i = 3; i + 1 < f.length; i += 4) if (f[i]) current.amounts[f[i]] = BigInt(f[i + 1] || '0')
      file.accounts.push(current)
    }
    if (code === '49') {
      const total = Object.values(current!.amounts).reduce((a, b) => a + b, 0n) + current!.details.reduce((a, d) => a + d.amount, 0n)
      if (BigInt(f[1]) !== total) throw new Error(`account control total ${f[1]} is not ${total}`)
      counted += Number(f[2])
    }
    if (code === '99' && Number(f[3]) !== physical.length) throw new Error(`file record count ${f[3]} is not ${physical.length}`)
  }
  if (!logical.at(-1)?.startsWith('99,')) throw new Error('no file trailer')
  if (counted === 0 && file.accounts.length > 0) throw new Error('no account trailer')
  return file
}
