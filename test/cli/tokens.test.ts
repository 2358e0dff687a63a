import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultConfigDir, expectNothingSent, knownSecrets, runAs, startEmulator, type Emulator} from '../support/index.js'

let emu: Emulator
let payee: string
let payer: string
let otherPayee: string
let livePayee: string

const errorJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').find((l) => l.startsWith('{'))!).error
const UUID = '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'
/** Runs `fn` and asserts the emulator received nothing and the (default) audit trail did not grow. */
const nothingSent = <T>(fn: () => Promise<T>) => expectNothingSent(emu, fn, defaultConfigDir())

async function firstId(key: string, list: 'payers' | 'payees'): Promise<string> {
  const r = await runAs(emu, key, [list, 'list', '--limit', '1', '--query', '[0].id'])
  expect(r.code, r.stderr).toBe(0)
  return r.json()
}

beforeAll(async () => {
  emu = await startEmulator()
  payee = await firstId('test', 'payees')
  payer = await firstId('test', 'payers')
  otherPayee = await firstId('test_other', 'payees')
  livePayee = await firstId('live', 'payees')
})
afterAll(async () => {
  await emu?.stop()
})

describe('tokens create', () => {
  it('--payee: token, expiry and the payee scopes, with the decoded claims under "claims"', async () => {
    const before = Date.now()
    const r = await runAs(emu, 'test', ['tokens', 'create', '--payee', payee, '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    const t = r.json()
    expect(t.token).toMatch(/^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+$/)
    expect(t.expires_in_seconds).toBe(900)
    expect(t.scopes).toEqual(['list_methods', 'add_method', 'set_default', 'delete_method', 'view_payee'])
    expect(t.claims).toMatchObject({sub: payee, party_type: 'payee', iss: 'payops-emulator', scopes: t.scopes})
    expect(t.claims.exp - t.claims.iat).toBe(900)
    const expires = Date.parse(t.expires_at)
    expect(expires).toBeGreaterThanOrEqual(before + 899_000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 901_000)
  })

  it('--party with each --party-type: the scopes of that type', async () => {
    const cases = [
      [payer, 'payer', ['payer_manage']],
      [payee, 'payee', ['payee_manage']],
      [UUID, 'external', ['external_manage']],
    ] as const
    for (const [id, type, scopes] of cases) {
      const r = await runAs(emu, 'test', ['tokens', 'create', '--party', id, '--party-type', type, '--json'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.json()).toMatchObject({scopes, expires_in_seconds: 900, claims: {sub: id, party_type: type}})
    }
  })

  it('the table shows the token, the absolute expiry and the scopes', async () => {
    const r = await runAs(emu, 'test', ['tokens', 'create', '--payee', payee, '-o', 'table'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^TOKEN\s+eyJ\S+$/m)
    expect(r.stdout).toMatch(/^EXPIRES\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/m)
    expect(r.stdout).toMatch(/^SCOPES\s+list_methods add_method set_default delete_method view_payee$/m)
  })

  it('--query token prints just the token; -o csv has the table columns', async () => {
    const q = await runAs(emu, 'test', ['tokens', 'create', '--party', payer, '--party-type', 'payer', '--query', 'token'])
    expect(q.json()).toMatch(/^eyJ/)
    const c = await runAs(emu, 'test', ['tokens', 'create', '--party', payer, '--party-type', 'payer', '-o', 'csv'])
    const [header, row] = c.stdout.trim().split('\r\n')
    expect(header).toBe('token,expires_at,scopes')
    expect(row).toMatch(/^eyJ\S+,\S+Z,payer_manage$/)
  })

  it('--debug never shows the token, though stdout does', async () => {
    const r = await runAs(emu, 'test', ['tokens', 'create', '--payee', payee, '--debug', '-o', 'json'])
    expect(r.code).toBe(0)
    const {token} = r.json()
    expect(r.stderr).toMatch(/\[debug\] ← 200 POST \/api\/session-tokens/)
    expect(r.stderr).not.toContain(token)
    expect(r.stderr).not.toContain(token.split('.')[2])
    expect(r.stderr).not.toContain(token.split('.')[1].slice(0, 40))
    const p = await runAs(emu, 'test', ['tokens', 'create', '--party', payer, '--party-type', 'payer', '--debug', '-o', 'json'])
    expect(p.code).toBe(0)
    expect(p.stderr).not.toContain(p.json().token)
    expect(p.stderr).not.toContain(p.json().token.split('.')[2])
  })

  it('an unknown or another entity\'s payee is 404 PAYEE_NOT_FOUND, exit 4', async () => {
    for (const args of [
      ['--payee', UUID],
      ['--payee', otherPayee],
      ['--party', otherPayee, '--party-type', 'payee'],
    ]) {
      const r = await runAs(emu, 'test', ['tokens', 'create', ...args, '-o', 'json'])
      expect(r.code, args.join(' ')).toBe(4)
      expect(r.stdout).toBe('')
      expect(errorJson(r.stderr)).toMatchObject({status: 404, error_code: 'PAYEE_NOT_FOUND'})
    }
  })

  it('an unknown or another entity\'s payer is 404 NOT_FOUND, exit 4', async () => {
    const r = await runAs(emu, 'test', ['tokens', 'create', '--party', UUID, '--party-type', 'payer'])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/404 NOT_FOUND/)
    const other = await runAs(emu, 'test_other', ['tokens', 'create', '--party', payer, '--party-type', 'payer'])
    expect(other.code).toBe(4)
  })

  it('usage errors exit 2 before any request: bad UUID, no target, both targets, missing or bad --party-type', async () => {
    for (const args of [
      ['--payee', 'not-a-uuid'],
      ['--party', 'not-a-uuid', '--party-type', 'payer'],
      [],
      ['--payee', payee, '--party', payer, '--party-type', 'payer'],
      ['--party', payer],
      ['--party', payer, '--party-type', 'vendor'],
      ['--payee', payee, '--party-type', 'payee'],
    ]) {
      const r = await nothingSent(() => runAs(emu, 'test', ['tokens', 'create', ...args]))
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.stderr).not.toMatch(/could not reach/)
    }
  })

  it('the API rejects a bad UUID, a missing field or a bad party_type with 400 VALIDATION_ERROR (exit 8)', async () => {
    for (const args of [
      ['api', 'POST', '/api/session-tokens', '-f', 'payee_id=nope'],
      ['api', 'POST', '/api/session-tokens'],
      ['api', 'POST', '/api/session-tokens/party', '-f', `party_id=${payer}`, '-f', 'party_type=vendor'],
      ['api', 'POST', '/api/session-tokens/party', '-f', `party_id=${payer}`],
    ]) {
      const r = await runAs(emu, 'test', [...args, '-o', 'json'])
      expect(r.code, args.join(' ')).toBe(8)
      expect(errorJson(r.stderr)).toMatchObject({status: 400, error_code: 'VALIDATION_ERROR'})
    }
  })

  it('the emulator answers the payee endpoint bare and the party endpoint wrapped in data', async () => {
    const bare = await runAs(emu, 'test', ['api', 'POST', '/api/session-tokens', '-f', `payee_id=${payee}`])
    expect(Object.keys(bare.json()).sort()).toEqual(['expires_in_seconds', 'scopes', 'token'])
    const wrapped = await runAs(emu, 'test', ['api', 'POST', '/api/session-tokens/party', '-f', `party_id=${payee}`, '-f', 'party_type=payee'])
    expect(Object.keys(wrapped.json())).toEqual(['data'])
  })

  it('an invalid key is 401 (exit 3); a read-only key is 403 AUTHORIZATION_ERROR (exit 3)', async () => {
    const bad = await runAs(emu, 'test_00000000000000000000000000000bad', ['tokens', 'create', '--payee', payee])
    expect(bad.code).toBe(3)
    expect(bad.stderr).toMatch(/401 AUTHENTICATION_ERROR/)
    const {key} = await emu.control<{key: string}>('POST', '/_emulator/keys', {entity: 'test', read_only: true})
    knownSecrets.add(key)
    const ro = await runAs(emu, key, ['tokens', 'create', '--party', payer, '--party-type', 'payer'])
    expect(ro.code).toBe(3)
    expect(ro.stderr).toMatch(/403 AUTHORIZATION_ERROR/)
  })

  it('on a LIVE key without a terminal it refuses (exit 3) unless --yes', async () => {
    const refused = await nothingSent(() => runAs(emu, 'live', ['tokens', 'create', '--payee', livePayee]))
    expect(refused.code).toBe(3)
    expect(refused.stderr).toMatch(/LIVE/)
    expect(refused.stdout).toBe('')
    const ok = await runAs(emu, 'live', ['tokens', 'create', '--payee', livePayee, '--yes', '-o', 'json'])
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.json().claims.sub).toBe(livePayee)
  })
})
