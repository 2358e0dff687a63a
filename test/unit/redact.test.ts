import {describe, expect, it} from 'vitest'
import {redact, redactKey, registerSecret, describeHeader, markedHeaders} from '../../src/api/redact.js'

describe('redactKey', () => {
  it('keeps the mode prefix and the last four characters', () => {
    expect(redactKey('live_9f8e7d6c5b4a3a1b2')).toBe('live_…a1b2')
    expect(redactKey('test_123456789')).toBe('test_…6789')
    expect(redactKey('whsec_abcdefghijk')).toBe('whsec_…hijk')
  })

  it('shows no characters of a short key', () => {
    expect(redactKey('test_12345678')).toBe('test_…')
    expect(redactKey('live_x')).toBe('live_…')
    expect(redactKey('short')).toBe('…')
  })

  it('handles keys without a known prefix', () => {
    expect(redactKey('abcdefghijkl')).toBe('…ijkl')
    expect(redactKey('abcdefgh')).toBe('…')
  })

  it('says (none) for a missing key', () => {
    expect(redactKey(undefined)).toBe('(none)')
    expect(redactKey(null)).toBe('(none)')
    expect(redactKey('')).toBe('(none)')
  })
})

describe('redact', () => {
  it('replaces a registered secret everywhere in the text, whatever its shape', () => {
    const secret = 'sk-Weird/Shape+Secret=42'
    registerSecret(secret)
    const text = `Authorization: ${secret}\n{"token":"${secret}"} url?k=${secret}&x=1 ${secret}${secret}`
    const out = redact(text)
    expect(out).not.toContain(secret)
    expect(out).not.toContain('Shape+Secret')
    expect(out.split('…t=42')).toHaveLength(6)
    expect(out).toContain('Authorization: …t=42\n')
  })

  it('replaces a registered key with its redacted form', () => {
    const key = 'test_Qm9vQm9vQm9vQm9v1234'
    registerSecret(key)
    expect(redact(`x-api-key: ${key}`)).toBe('x-api-key: test_…1234')
  })

  it('masks anything shaped like a live or test key even when not registered', () => {
    const out = redact('sent live_AAAABBBBCCCCDDDD9z9z and test_ZZZZYYYYXXXX0000 to the server')
    expect(out).toBe('sent live_…9z9z and test_…0000 to the server')
  })

  it('masks webhook signing secrets', () => {
    expect(redact('secret=whsec_c2VjcmV0c2VjcmV0+/= done')).toBe('secret=whsec_…0+/= done')
  })

  it('leaves short or non-key strings untouched', () => {
    registerSecret('abc')
    registerSecret('1234567')
    registerSecret(undefined)
    registerSecret('')
    const text = 'abc 1234567 test_short live_ whsec_x plain text 12345'
    expect(redact(text)).toBe(text)
  })

  it('does not mask key-shaped text glued to other word characters', () => {
    expect(redact('prelive_AAAABBBBCCCCDDDD')).toBe('prelive_AAAABBBBCCCCDDDD')
  })

  it('is a no-op on text without secrets', () => {
    const text = 'GET /api/subaccounts/3f1c2a9e-6b7d-4c8e-9f01-23456789abcd 200'
    expect(redact(text)).toBe(text)
  })
})

describe('describeHeader (debug traces)', () => {
  it('redacts every credential-bearing header, keeping the scheme and the last four characters', () => {
    expect(describeHeader('Authorization', 'Bearer abcdefghijklmnopqrstuvwx')).toBe('Authorization: Bearer …uvwx')
    expect(describeHeader('authorization', 'Basic dXNlcjpwYXNzd29yZA==')).toBe('authorization: Basic …ZA==')
    expect(describeHeader('Proxy-Authorization', 'Basic short')).toBe('Proxy-Authorization: Basic …')
    expect(describeHeader('Cookie', 'session=0123456789abcdef0123')).toBe('Cookie: …0123')
    expect(describeHeader('x-api-key', 'test_0123456789abcdef')).toBe('x-api-key: test_…cdef')
    for (const name of ['X-Auth-Token', 'X-Client-Secret', 'X-Signature', 'X-Session', 'X-Password', 'Api-Key']) {
      expect(describeHeader(name, 'verysecretvalue-12345678')).toBe(`${name}: …5678`)
    }
  })

  it('leaves other headers alone, and redacts the headers the user marks', () => {
    expect(describeHeader('idempotency-key', 'abc-123')).toBe('idempotency-key: abc-123')
    expect(describeHeader('content-type', 'application/json')).toBe('content-type: application/json')
    expect(describeHeader('X-Tenant', 'acme-corporation-eu')).toBe('X-Tenant: acme-corporation-eu')
    expect(describeHeader('X-Tenant', 'acme-corporation-eu', markedHeaders({PAYOPS_REDACT_HEADERS: 'x-other, X-Tenant'}))).toBe('X-Tenant: …n-eu')
    expect(markedHeaders({})).toEqual([])
  })
})
