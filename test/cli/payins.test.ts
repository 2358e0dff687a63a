import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {defaultConfigDir, expectNothingSent, runAs, startEmulator, type Emulator} from '../support/index.js'

let emu: Emulator

const errorJson = (stderr: string) => JSON.parse(stderr.trim().split('\n').find((l) => l.startsWith('{'))!).error

async function newPayin(body: Record<string, unknown> = {}): Promise<any> {
  return (await emu.control<{data: any}>('POST', '/_emulator/payins', {amount_in_minor_units: 123456, ...body})).data
}

async function advance(id: string, status: string): Promise<any> {
  return (await emu.control<{data: any}>('POST', `/_emulator/payins/${id}/advance`, {status})).data
}

beforeAll(async () => {
  emu = await startEmulator()
})
afterAll(async () => {
  await emu?.stop()
})

describe('payins get', () => {
  it('prints the payin as JSON with the spec fields', async () => {
    const p = await newPayin({rail: 'same_day_ach', client_metadata: {invoice: 'INV-9'}})
    const r = await runAs(emu, 'test', ['payins', 'get', p.id])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    const got = r.json()
    expect(got).toEqual(p)
    expect(got).toMatchObject({
      amount_in_minor_units: 123456,
      amount_in_cents: 123456,
      currency_code: 'USD',
      rail: 'same_day_ach',
      status: 'created',
      scheduled_date: null,
      client_metadata: {invoice: 'INV-9'},
    })
    expect(Object.keys(got.payin_metadata)).toEqual(['payment_method', 'payer'])
    expect(got.payin_metadata.payment_method).not.toHaveProperty('end_to_end_id')
  })

  it('the table shows the amount as 1,234.56 USD and the payer name and email', async () => {
    const p = await newPayin()
    const r = await runAs(emu, 'test', ['payins', 'get', p.id, '-o', 'table'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/AMOUNT\s+1,234\.56 USD/)
    expect(r.stdout).toMatch(/STATUS\s+created/)
    expect(r.stdout).toContain(p.payin_metadata.payer.name)
    expect(r.stdout).toContain(p.payin_metadata.payer.email)
  })

  it('shows the end_to_end_id once initiated, and follows the states to settled', async () => {
    const p = await newPayin()
    await advance(p.id, 'initiated')
    const r = await runAs(emu, 'test', ['payins', 'get', p.id, '-o', 'table'])
    const e2e = /END TO END ID\s+(\d{15})/.exec(r.stdout)
    expect(e2e).not.toBeNull()
    await advance(p.id, 'settled')
    const s = await runAs(emu, 'test', ['payins', 'get', p.id, '--query', '[status, payin_metadata.payment_method.end_to_end_id]'])
    expect(s.json()).toEqual(['settled', e2e![1]])
  })

  it('-o csv and --columns', async () => {
    const p = await newPayin({amount_in_minor_units: 5})
    const r = await runAs(emu, 'test', ['payins', 'get', p.id, '-o', 'csv', '--columns', 'id,amount,payer_email,status'])
    expect(r.stdout).toBe(`id,amount,payer_email,status\r\n${p.id},0.05 USD,${p.payin_metadata.payer.email},created\r\n`)
    const n = await runAs(emu, 'test', ['payins', 'get', p.id, '-o', 'ndjson'])
    expect(n.stdout.trim().split('\n')).toHaveLength(1)
    expect(JSON.parse(n.stdout).id).toBe(p.id)
  })

  it('a seeded payin can be read', async () => {
    const seeded = await emu.control<{data: any[]}>('GET', '/_emulator/payins?entity=test')
    const old = seeded.data[seeded.data.length - 1]
    const r = await runAs(emu, 'test', ['payins', 'get', old.id])
    expect(r.json().id).toBe(old.id)
  })

  it('an unknown payin is 404 PAYIN_NOT_FOUND, exit 4', async () => {
    const r = await runAs(emu, 'test', ['payins', 'get', '00000000-0000-4000-8000-000000000000', '-o', 'json'])
    expect(r.code).toBe(4)
    expect(r.stdout).toBe('')
    expect(errorJson(r.stderr)).toMatchObject({status: 404, error_code: 'PAYIN_NOT_FOUND'})
  })

  it('another entity\'s payin is 404 PAYIN_NOT_FOUND, exit 4', async () => {
    const p = await newPayin({entity: 'test_other'})
    const r = await runAs(emu, 'test', ['payins', 'get', p.id])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/404 PAYIN_NOT_FOUND/)
    expect((await runAs(emu, 'test_other', ['payins', 'get', p.id])).code).toBe(0)
  })

  it('an invalid key is 401 AUTHENTICATION_ERROR, exit 3', async () => {
    const p = await newPayin()
    const r = await runAs(emu, 'test_00000000000000000000000000000bad', ['payins', 'get', p.id])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/401 AUTHENTICATION_ERROR/)
  })

  it('a missing id is a usage error, exit 2', async () => {
    const r = await expectNothingSent(emu, () => runAs(emu, 'test', ['payins', 'get']), defaultConfigDir())
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/Missing the argument ID \(payin id\)\. See --help\./)
  })
})
