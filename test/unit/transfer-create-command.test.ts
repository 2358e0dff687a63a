/** `transfers create --wait` in-process: a real TransfersApi and ApiClient over a fake origin (no server), fake IO and clock. */
import {describe, expect, it} from 'vitest'
import {TransfersApi} from '../../src/api/transfers.js'
import {ApiClient} from '../../src/api/client.js'
import type {AccountTransfer} from '../../src/api/schemas/transfers.js'
import {runTransferCreate} from '../../src/movements/transfer-create.js'
import {testContext} from './context.js'
import {fakeOrigin} from './doubles.js'

const FROM = 'acc_from'
const TO = 'acc_to'
/** The source account as the account list shows it (its currency is checked before sending). */
const treasury = {findAccount: async (id: string) => (id === FROM ? {id, label: 'From', currency_code: 'USD'} : undefined)}

function transfer(status: string): AccountTransfer {
  return {id: 'tr_1', from_account_id: FROM, to_account_id: TO, amount_in_minor_units: 150000, currency_code: 'USD', rail: 'wire', status, created_at: '2026-11-23T12:00:00Z', scheduled_date: null}
}

/** A client whose create answers 202 `approved` and whose list shows the given statuses in turn. */
function fakeClient(statuses: string[], createStatus = 202) {
  const seen: string[] = []
  const {baseUrl, transport} = fakeOrigin((req) => {
    seen.push(`${req.method} ${req.path}`)
    if (req.method !== 'GET') return {status: createStatus, body: {data: transfer('approved')}}
    const status = statuses.length > 1 ? statuses.shift()! : statuses[0]
    return {status: 200, body: {data: [transfer(status)], has_more: false, next_cursor: null, total_count: 1}}
  })
  return {api: new TransfersApi(new ApiClient({baseUrl, transport})), seen}
}

const request = {kind: 'transfer.create' as const, from: FROM, to: TO, amount: {decimal: '1500.00'}, currency: 'USD', rail: 'wire', autoApprove: true}

describe('runTransferCreate', () => {
  it('a 202 is noted, --wait follows the list to settled on the fake clock, and the final state is rendered', async () => {
    const {api, seen} = fakeClient(['approved', 'initiated', 'settled'])
    const t = testContext({api: {transfers: api, treasury}})
    const spins: string[] = []
    await runTransferCreate({request, guard: {}, wait: true, waitTimeoutSec: 60, pollIntervalMs: 1000}, t.ctx, {
      start: (_, s) => spins.push(`start ${s}`),
      status: (s) => spins.push(s),
      stop: (s) => spins.push(`stop ${s}`),
    })
    expect(seen[0]).toBe('POST /api/treasury/account-transfers')
    expect(JSON.parse(t.stdout())).toMatchObject({id: 'tr_1', status: 'settled'})
    expect(t.stderr()).toMatch(/Accepted \(202\): transfer tr_1 is approved; processing continues\./)
    expect(t.stderr()).toMatch(/"outcome":\{"kind":"created","id":"tr_1","idempotency_key":"[0-9a-f-]{36}"/)
    expect(spins).toEqual(['start approved', 'initiated', 'settled', 'stop settled'])
    expect(t.slept()).toBe(3000)
  })

  it('--wait-timeout ends with the last status shown on stdout and exit 7', async () => {
    const {api} = fakeClient(['approved'])
    const t = testContext({api: {transfers: api, treasury}})
    const err = await runTransferCreate({request, guard: {}, wait: true, waitTimeoutSec: 5, pollIntervalMs: 1000}, t.ctx).catch((e) => e)
    expect(err.exitCode).toBe(7)
    expect(err.message).toMatch(/Timed out after 5s waiting for account transfer tr_1; last status: approved/)
    expect(JSON.parse(t.stdout())).toMatchObject({status: 'approved'})
  })

  it('without --wait it renders the answer at once; on LIVE without a terminal nothing is sent', async () => {
    const {api, seen} = fakeClient(['approved'], 201)
    const t = testContext({api: {transfers: api, treasury}})
    await runTransferCreate({request, guard: {}, wait: false, waitTimeoutSec: 5, pollIntervalMs: 1000}, t.ctx)
    expect(JSON.parse(t.stdout())).toMatchObject({status: 'approved'})
    const live = fakeClient(['approved'])
    const l = testContext({api: {transfers: live.api, treasury}, live: true})
    await expect(runTransferCreate({request, guard: {}, wait: false, waitTimeoutSec: 5, pollIntervalMs: 1000}, l.ctx)).rejects.toMatchObject({exitCode: 3})
    expect(live.seen).toEqual([])
    expect(seen).toHaveLength(1)
  })
})

describe('runTransferCreate: Ctrl-C while waiting', () => {
  it('stops waiting with the last state on stdout, "Stopped waiting; transfer X is <status>", exit 130', async () => {
    const {api} = fakeClient(['approved', 'initiated'])
    const t = testContext({api: {transfers: api, treasury}})
    const spins: string[] = []
    const running = runTransferCreate({request, guard: {}, wait: true, waitTimeoutSec: 60, pollIntervalMs: 1000}, t.ctx, {
      start: () => undefined,
      status: (s) => {
        spins.push(s)
        t.stop()
      },
      stop: (s) => spins.push(`stop ${s}`),
    })
    const err = await running.catch((e) => e)
    expect(err.exitCode).toBe(130)
    expect(err.message).toBe('Stopped waiting; transfer tr_1 is initiated.')
    expect(JSON.parse(t.stdout())).toMatchObject({status: 'initiated'})
    expect(spins).toEqual(['initiated', 'stop stopped'])
  })
})
