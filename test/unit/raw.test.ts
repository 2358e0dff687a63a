import {describe, expect, it} from 'vitest'
import {usage} from './support.js'
import {RAW_METHODS, buildRawRequest, typedValue, type RawInput} from '../../src/api/raw.js'
import {UsageError} from '../../src/errors.js'

const files: Record<string, string> = {'body.txt': 'file contents\n', '/dev/stdin': 'from stdin'}
const readFile = (f: string): string => {
  if (!(f in files)) throw new Error(`ENOENT: ${f}`)
  return files[f]
}

function build(input: Partial<RawInput> & Pick<RawInput, 'method' | 'path'>) {
  const reads: string[] = []
  const req = buildRawRequest({
    readFile: (f) => {
      reads.push(f)
      return readFile(f)
    },
    ...input,
  })
  return {req, reads}
}


describe('typedValue', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['null', null],
    ['42', 42],
    ['-7', -7],
    ['0', 0],
    ['12.5', 12.5],
    ['-0.25', -0.25],
    ['hello', 'hello'],
    ['True', 'True'],
    ['1e3', '1e3'],
    ['12.', '12.'],
    ['', ''],
  ])('types %j as %j', (input, expected) => {
    expect(typedValue(input, readFile)).toStrictEqual(expected)
  })

  it('reads @file through the callback, and @- from stdin', () => {
    expect(typedValue('@body.txt', readFile)).toBe('file contents\n')
    expect(typedValue('@-', readFile)).toBe('from stdin')
  })

  it('refuses an integer that cannot be sent exactly', () => {
    expect(usage(() => typedValue('9007199254740993', readFile)).message).toContain('too large')
    expect(typedValue('9007199254740991', readFile)).toBe(Number.MAX_SAFE_INTEGER)
  })
})

describe('buildRawRequest', () => {
  it('lists the supported methods', () => {
    expect(RAW_METHODS).toEqual(['GET', 'POST', 'PATCH', 'PUT', 'DELETE'])
  })

  it('sends GET fields as query parameters', () => {
    const {req} = build({method: 'GET', path: '/api/payees', fields: ['name=Ann Lee', 'limit=5'], typedFields: ['has_default=true']})
    expect(req.method).toBe('GET')
    expect(req.path).toBe('/api/payees')
    expect(req.query).toEqual({name: 'Ann Lee', limit: '5', has_default: true})
    expect(req.body).toBeUndefined()
    expect(req.rawBody).toBeUndefined()
  })

  it('sends DELETE fields as query parameters too', () => {
    const {req} = build({method: 'DELETE', path: '/api/x', fields: ['a=1']})
    expect(req.query).toEqual({a: '1'})
    expect(req.body).toBeUndefined()
  })

  it('sends nested GET fields as JSON-encoded query values', () => {
    const {req} = build({method: 'GET', path: '/x', fields: ['filter.a=1']})
    expect(req.query).toEqual({filter: '{"a":"1"}'})
  })

  it('prefixes a missing leading slash', () => {
    expect(build({method: 'GET', path: 'api/subaccounts/abc'}).req.path).toBe('/api/subaccounts/abc')
  })

  it('keeps a query string of the path, merging with fields', () => {
    const {req} = build({method: 'GET', path: '/api/treasury/account-transfers?status=created&status=settled&limit=2', fields: ['order=asc']})
    expect(req.path).toBe('/api/treasury/account-transfers')
    expect(req.query).toEqual({status: ['created', 'settled'], limit: '2', order: 'asc'})
  })

  it('accumulates three repeats of a path query key', () => {
    const {req} = build({method: 'GET', path: '/x?r=a&r=b&r=c'})
    expect(req.query).toEqual({r: ['a', 'b', 'c']})
  })

  it('builds a POST JSON body with nested keys in both dotted and bracket forms', () => {
    const {req} = build({
      method: 'POST',
      path: '/api/subaccounts/move',
      fields: ['from_subaccount_id=A', 'client_metadata.ref=inv-1', 'client_metadata[batch]=7'],
      typedFields: ['amount_in_minor_units=1234', 'auto_approve=false', 'deep[a][b]=null', 'x.y.z=1.5'],
    })
    expect(req.body).toEqual({
      from_subaccount_id: 'A',
      client_metadata: {ref: 'inv-1', batch: '7'},
      amount_in_minor_units: 1234,
      auto_approve: false,
      deep: {a: {b: null}},
      x: {y: {z: 1.5}},
    })
    expect(req.rawBody).toBeUndefined()
  })

  it('keeps -f values as strings while -F types them', () => {
    const {req} = build({method: 'PATCH', path: '/x', fields: ['a=true', 'n=12'], typedFields: ['b=true', 'm=12']})
    expect(req.body).toEqual({a: 'true', n: '12', b: true, m: 12})
  })

  it('reads -F @file through the callback', () => {
    const {req, reads} = build({method: 'POST', path: '/x', typedFields: ['description=@body.txt']})
    expect(req.body).toEqual({description: 'file contents\n'})
    expect(reads).toEqual(['body.txt'])
  })

  it('keeps everything after the first = in the value', () => {
    const {req} = build({method: 'POST', path: '/x', fields: ['q=a=b=c']})
    expect(req.body).toEqual({q: 'a=b=c'})
  })

  it('sends an empty object for a POST without fields', () => {
    expect(build({method: 'POST', path: '/x'}).req.body).toEqual({})
  })

  it.each(['novalue', '=v'])('refuses the field %j', (pair) => {
    expect(usage(() => build({method: 'POST', path: '/x', fields: [pair]})).message).toContain('must be key=value')
    usage(() => build({method: 'POST', path: '/x', typedFields: [pair]}))
  })

  it.each(['__proto__.polluted=yes', 'a[__proto__][polluted]=yes', '__proto__=x'])('refuses the prototype-polluting field %j', (pair) => {
    usage(() => build({method: 'POST', path: '/x', fields: [pair]}))
    usage(() => build({method: 'GET', path: '/x', typedFields: [pair]}))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('builds constructor/prototype keys as plain own properties', () => {
    const {req} = build({method: 'POST', path: '/x', fields: ['constructor.prototype.p=1']})
    expect(req.body).toEqual({constructor: {prototype: {p: '1'}}})
    expect(({} as Record<string, unknown>).p).toBeUndefined()
  })

  it('refuses an empty nested field name', () => {
    usage(() => build({method: 'POST', path: '/x', fields: ['[]=1']}))
  })

  it.each(['https://evil.example/api/x', 'http://127.0.0.1/api', 'HTTPS://x/y'])('refuses the full URL %s', (path) => {
    expect(usage(() => build({method: 'GET', path})).message).toContain('not a full URL')
  })

  it('passes headers, trimming names and values', () => {
    const {req} = build({method: 'GET', path: '/x', headers: ['X-Trace:  abc ', 'Accept: text/csv', 'X-Empty:']})
    expect(req.headers).toEqual({'X-Trace': 'abc', Accept: 'text/csv', 'X-Empty': ''})
  })

  it.each(['x-api-key: live_abc', 'X-API-KEY:test_123', ' x-Api-Key : k'])('refuses the key header %j', (h) => {
    expect(usage(() => build({method: 'GET', path: '/x', headers: [h]})).message).toContain('not -H')
  })

  it('refuses a header without a name', () => {
    usage(() => build({method: 'GET', path: '/x', headers: ['no colon']}))
    usage(() => build({method: 'GET', path: '/x', headers: [': v']}))
  })

  it('sends --input as the raw body unchanged', () => {
    const input = '{ "label" :  "Ops",\n "n": 12345678901234567890 }'
    const {req} = build({method: 'POST', path: '/api/treasury/accounts/a/update-label', input, fields: ['ignored=1']})
    expect(req.rawBody).toBe(input)
    expect(req.body).toBeUndefined()
  })

  it('refuses --input that is not valid JSON', () => {
    expect(usage(() => build({method: 'POST', path: '/x', input: '{label: Ops}'})).message).toBe('--input is not valid JSON.')
    usage(() => build({method: 'PUT', path: '/x', input: ''}))
  })

  it.each(['GET', 'DELETE'] as const)('refuses --input with %s', (method) => {
    expect(usage(() => build({method, path: '/x', input: '{}'})).message).toContain(`--input is not sent with ${method}`)
  })
})

describe('buildRawRequest: the path of a request that changes something', () => {
  const build = (method: 'POST' | 'DELETE' | 'GET', path: string) => buildRawRequest({method, path, readFile: () => ''})
  it('refuses ;params, percent-encoding, dot and empty segments on every non-GET (exit 2)', () => {
    for (const path of ['/api/subaccounts/move;x', '/api/subaccounts%2Fmove', '/api/subaccounts/move%3F', '/api/subaccounts/move%23', '/api/subaccounts/move%00', '/api/./subaccounts/move', '/api/x/../subaccounts/move', '/api//subaccounts/move', '/api/subaccounts/move/', '/api/sub accounts']) {
      for (const method of ['POST', 'DELETE'] as const) {
        let err: UsageError | undefined
        try {
          build(method, path)
        } catch (e) {
          err = e as UsageError
        }
        expect(err, `${method} ${path}`).toBeInstanceOf(UsageError)
        expect(err?.exitCode).toBe(2)
        expect(err?.message).toMatch(/needs a path in canonical form/)
      }
    }
  })

  it('takes canonical paths, and leaves GET paths to the server', () => {
    expect(build('POST', '/api/subaccounts/move').path).toBe('/api/subaccounts/move')
    expect(build('POST', '/api/subaccounts/move/3f1c2a9e-6b7d-4c8e-9f01-23456789abcd/approve?x=1').path).toBe('/api/subaccounts/move/3f1c2a9e-6b7d-4c8e-9f01-23456789abcd/approve')
    expect(build('GET', '/api/subaccounts/a%20b').path).toBe('/api/subaccounts/a%20b')
  })
})
