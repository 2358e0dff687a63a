/**
 * The books with one balance past 2^53 among ordinary ones: an API (a loopback server here, since
 * the emulator keeps totals within the exact range of a double) answers two treasury accounts, one
 * of whose balances is 9007199254740993 minor units, and two subaccounts, one of whose totals
 * leave a balance past 2^53. `position` and `report statement` name that one figure as unreadable
 * and show every other; `treasury accounts balance` shows it exactly. Checks read stdout as text
 * where a figure is past 2^53 (JSON.parse here would round it).
 */
import {describe, expect, it} from 'vitest'
import {routesServer, run} from '../support/index.js'

const BIG = '9007199254740993' // 2^53 + 1
const HUGE = 'a1b2c3d4-0000-4000-8000-00000000000a'
const PLAIN = 'a1b2c3d4-0000-4000-8000-00000000000b'
const SUB_HUGE = 'a1b2c3d4-0000-4000-8000-0000000000c1'
const SUB_PLAIN = 'a1b2c3d4-0000-4000-8000-0000000000c2'
const account = (id: string, label: string) => ({id, label, currency_code: 'USD', last_four_digits: null, created_at: '2026-01-02T00:00:00Z'})
const subaccount = (id: string, name: string, totals: string) =>
  JSON.stringify({id, name, account_number: '4000123412341234', routing_numbers: {ach: '021000021', wire: '021000021'}, currency_code: 'USD', created_at: '2026-01-02T00:00:00Z'}).replace(/}$/, `,${totals}}`)
const balance = (id: string, figure: string) => `{"data":{"account_id":"${id}","currency_code":"USD","current_balance_in_minor_units":${figure},"available_balance_in_minor_units":${figure},"as_of":"2026-11-30T12:00:00Z"}}`
const list = (items: unknown[]) => JSON.stringify({data: items, has_more: false})
const line = {id: 'b0000000-0000-4000-8000-000000000001', amount_in_minor_units: 2500, currency_code: 'USD', description: 'SERVICE FEE', direction: 'debit', transaction_date: '2026-03-12'}

const ROUTES: Record<string, string> = {
  '/api/treasury/accounts': list([account(HUGE, 'Big reserve'), account(PLAIN, 'Operating')]),
  [`/api/treasury/accounts/${HUGE}/balance`]: balance(HUGE, BIG),
  [`/api/treasury/accounts/${PLAIN}/balance`]: balance(PLAIN, '123456'),
  [`/api/treasury/accounts/${HUGE}/bank-transactions`]: list([line]),
  '/api/treasury/account-transfers': list([]),
  [`/api/subaccounts/${SUB_HUGE}`]: `{"data":${subaccount(SUB_HUGE, 'Vault', `"total_incoming_in_minor_units":${BIG},"total_outgoing_in_minor_units":0`)}}`,
  [`/api/subaccounts/${SUB_PLAIN}`]: `{"data":${subaccount(SUB_PLAIN, 'Payroll', '"total_incoming_in_minor_units":5000,"total_outgoing_in_minor_units":1000')}}`,
  [`/api/subaccounts/${SUB_HUGE}/activity`]: list([]),
}

const server = routesServer(ROUTES)

const payops = (args: string[], opts: {tty?: boolean} = {}) =>
  run([...args, '--max-retries', '0'], {env: {PAYOPS_BASE_URL: server.url, PAYOPS_API_KEY: 'test_0123456789abcdef0123456789abcdef'}, ...opts})

describe('a balance past 2^53 among others', () => {
  it('position names that one balance as unreadable and shows every other account and subaccount', async () => {
    const r = await payops(['position', '--subaccount', SUB_HUGE, '--subaccount', SUB_PLAIN, '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`The balance of account Big reserve (${HUGE}) is ${BIG} minor units, past what payops computes exactly (2^53)`)
    expect(r.stderr).toContain(`The balance of subaccount Vault (${SUB_HUGE}) is ${BIG} minor units`)
    const p = r.json()
    expect(p.accounts.find((a: any) => a.account_id === HUGE)).toMatchObject({balance_in_minor_units: null, projected_balance_in_minor_units: null, unreadable: expect.stringContaining(BIG)})
    expect(p.accounts.find((a: any) => a.account_id === PLAIN)).toMatchObject({balance_in_minor_units: 123456, projected_balance_in_minor_units: 123456})
    expect(p.subaccounts).toEqual([
      expect.objectContaining({subaccount_id: SUB_HUGE, balance_in_minor_units: null}),
      {subaccount_id: SUB_PLAIN, name: 'Payroll', currency_code: 'USD', balance_in_minor_units: 4000},
    ])
    const table = await payops(['position', '--no-color'], {tty: true})
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(/Operating\s+1,234\.56 USD/)
  })

  it('a statement shows the lines and names the balance it cannot derive from; OFX, which needs it, is refused', async () => {
    const r = await payops(['report', 'statement', '--account', HUGE, '--month', '2026-03', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`The current balance of account Big reserve (${HUGE}) is ${BIG} minor units`)
    expect(r.json()).toMatchObject({opening_balance_in_minor_units: null, closing_balance_in_minor_units: null, lines: [expect.objectContaining({id: line.id, amount_in_minor_units: 2500, balance_in_minor_units: null})]})
    const sub = await payops(['report', 'statement', '--subaccount', SUB_HUGE, '--month', '2026-03', '-o', 'json'])
    expect(sub.code, sub.stderr).toBe(0)
    expect(sub.json()).toMatchObject({closing_balance_in_minor_units: null, unreadable: expect.stringContaining('Vault')})
    const ofx = await payops(['report', 'statement', '--account', HUGE, '--month', '2026-03', '--format', 'ofx'])
    expect(ofx.code).toBe(2)
    expect(ofx.stdout).toBe('')
    expect(ofx.stderr).toMatch(/an OFX statement needs it, so none was written/)
  })

  it('treasury accounts balance shows it exactly; the other account as before', async () => {
    const r = await payops(['treasury', 'accounts', 'balance', HUGE, '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain(`"current_balance_in_minor_units": ${BIG},`)
    const t = await payops(['treasury', 'accounts', 'balance', HUGE, '-o', 'table'])
    expect(t.stdout).toMatch(/^CURRENT +90,071,992,547,409\.93 USD$/m)
    expect((await payops(['treasury', 'accounts', 'balance', PLAIN, '-o', 'json'])).json()).toMatchObject({current_balance_in_minor_units: 123456})
  })
})
