import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {AuditLog, readAudit, recordHash, verifyAudit, verifyExport, type AuditFields} from '../../src/audit/index.js'
import {exportedTrail} from '../support/trail.js'
import {applySetting, unsetSetting} from '../../src/config/settings.js'
import {UsageError} from '../../src/errors.js'
import {limitViolations} from '../../src/guardrails.js'
import {tempDirs} from '../support/index.js'

const temp = tempDirs('payops-audit-unit-')

describe('limitViolations', () => {
  const limits = {max_amount: {USD: 5000}, allowed_destinations: ['dest-1']}
  it('allows what is within the limits', () => {
    expect(limitViolations(limits, {amount_in_minor_units: 5000, currency: 'USD', to: 'dest-1'}, 'p')).toEqual([])
    expect(limitViolations(undefined, {amount_in_minor_units: 10 ** 12, currency: 'USD', to: 'x'}, 'p')).toEqual([])
  })
  it('names each limit broken', () => {
    const v = limitViolations(limits, {amount_in_minor_units: 5001, currency: 'usd', to: 'other', label: 'line 7'}, 'prod')
    expect(v).toEqual([
      'line 7: 50.01 USD is over the max-amount 50.00 USD of profile "prod"',
      'line 7: destination other is not in the allowed-destinations of profile "prod"',
    ])
    expect(limitViolations(limits, {amount_in_minor_units: 1, currency: 'EUR', to: 'dest-1'}, 'prod')[0]).toMatch(/none for EUR/)
  })
})

describe('profile settings', () => {
  it('sets max-amount per currency exactly, destinations and base URL', () => {
    let p = applySetting({}, 'max-amount', ['5,000.00', 'usd']).profile
    p = applySetting(p, 'max-amount', ['700', 'JPY']).profile
    const [a, b, c] = ['a', 'b', 'c'].map((x) => `${x.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`)
    p = applySetting(p, 'allowed-destinations', [`${a},${b}`, b, c]).profile
    expect(p.limits).toEqual({max_amount: {USD: 500000, JPY: 700}, allowed_destinations: [a, b, c]})
    expect(applySetting(p, 'base-url', ['https://api.example.com/']).profile.base_url).toBe('https://api.example.com')
    expect(unsetSetting(p, 'max-amount', ['JPY']).profile.limits?.max_amount).toEqual({USD: 500000})
    expect(unsetSetting(unsetSetting(p, 'max-amount', []).profile, 'allowed-destinations', []).profile.limits).toBeUndefined()
  })
  it('refuses bad values as usage errors', () => {
    for (const [k, v] of [
      ['max-amount', ['1.234', 'USD']],
      ['max-amount', ['10']],
      ['max-amount', ['-1', 'USD']],
      ['allowed-destinations', []],
      ['base-url', ['http://example.com']],
      ['colour', ['x']],
    ] as const) {
      expect(() => applySetting({}, k, [...v])).toThrow(UsageError)
    }
  })
})

describe('audit chain', () => {
  const fields = (n: number): AuditFields => ({kind: 'intent', op: `op-${n}`, profile: 'p', mode: 'test', method: 'POST', path: `/api/x/${n}`, amount_in_minor_units: n})

  it('appends records (grouped) that chain and verify', async () => {
    const dir = temp()
    const log = new AuditLog(dir)
    await Promise.all(Array.from({length: 25}, (_, i) => log.append(fields(i))))
    await log.append(fields(99))
    const records = readAudit(dir)
    expect(records).toHaveLength(26)
    expect(records.map((r) => r.seq)).toEqual(Array.from({length: 26}, (_, i) => i + 1))
    records.forEach((r, i) => {
      const {hash, ...rest} = r
      expect(recordHash(rest)).toBe(hash)
      if (i > 0) expect(r.prev).toBe(records[i - 1].hash)
    })
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 26})
  })

  it('two writers on the same store keep one chain', async () => {
    const dir = temp()
    const a = new AuditLog(dir)
    const b = new AuditLog(dir)
    await Promise.all(Array.from({length: 30}, (_, i) => (i % 2 ? a : b).append(fields(i))))
    expect(verifyAudit(dir)).toMatchObject({ok: true, records: 30})
  })

  it('names the line of an edit, a removal, a swap and a cut end in an export', async () => {
    const dir = temp()
    const log = new AuditLog(dir)
    for (let i = 0; i < 6; i++) await log.append(fields(i))
    await log.close()
    const file = join(dir, 'export.jsonl')
    const lines = exportedTrail(dir).trim().split('\n')
    const head = lines.pop()!
    const check = (mutated: string[], line: number, reason: RegExp) => {
      writeFileSync(file, [...mutated, head].join('\n') + '\n')
      const r = verifyExport(file)
      expect(r.ok).toBe(false)
      expect(r.line).toBe(line)
      expect(r.reason).toMatch(reason)
    }
    check(lines.map((l, i) => (i === 2 ? l.replace('"amount_in_minor_units":2', '"amount_in_minor_units":200') : l)), 3, /edited/)
    check(lines.filter((_, i) => i !== 3), 4, /removed|order/)
    check([lines[0], lines[2], lines[1], ...lines.slice(3)], 2, /order|removed/)
    check(lines.slice(0, 5), 6, /missing/)
    check([...lines.slice(0, 2), 'garbage', ...lines.slice(3)], 3, /not a valid record/)
    writeFileSync(file, [...lines, head].join('\n') + '\n')
    expect(verifyExport(file).ok).toBe(true)
    expect(verifyAudit(dir).ok).toBe(true)
  })
})
