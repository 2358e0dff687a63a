import {describe, expect, it} from 'vitest'
import {ApiClient} from '../../src/api/client.js'
import type {AccountTransfer} from '../../src/api/schemas/transfers.js'
import {TransfersApi, WaitInterruptedError, WaitTimeoutError, isFinalTransferStatus} from '../../src/api/transfers.js'
import {ExitCode} from '../../src/errors.js'

const base: AccountTransfer = {
  id: 't1',
  from_account_id: 'a',
  to_account_id: 'b',
  amount_in_minor_units: 100,
  currency_code: 'USD',
  rail: 'wire',
  status: 'approved',
  created_at: '2026-01-01T00:00:00.000Z',
}

/** A TransfersApi whose list answers the given statuses one poll after another (then the last one forever). */
function scripted(statuses: Array<string | undefined>) {
  const api = new TransfersApi(new ApiClient({baseUrl: 'http://127.0.0.1:1'}))
  let polls = 0
  let clock = 0
  api.find = async () => {
    const s = statuses[Math.min(polls++, statuses.length - 1)]
    return s === undefined ? undefined : {...base, status: s}
  }
  const opts = {
    sleep: async (ms: number) => {
      clock += ms
    },
    now: () => clock,
    intervalMs: 1000,
  }
  return {api, opts, polls: () => polls, clock: () => clock}
}

describe('transfers.waitFor', () => {
  it('returns at once when the status is already final', async () => {
    const s = scripted([])
    const r = await s.api.waitFor({...base, status: 'settled'}, {...s.opts, timeoutMs: 10_000})
    expect(r).toEqual({transfer: {...base, status: 'settled'}, outcome: 'final'})
    expect(s.polls()).toBe(0)
  })

  it('follows approved -> initiated -> settled and reports each change', async () => {
    const s = scripted(['approved', 'initiated', 'initiated', 'settled'])
    const seen: string[] = []
    const r = await s.api.waitFor(base, {...s.opts, timeoutMs: 60_000, onStatus: (t) => seen.push(t.status)})
    expect(r.outcome).toBe('final')
    expect(r.transfer.status).toBe('settled')
    expect(seen).toEqual(['initiated', 'settled'])
    expect(s.polls()).toBe(4)
  })

  it('a non-final status that stops changing is waited on until the timeout (only a final status ends the wait)', async () => {
    const s = scripted(['initiated'])
    const err = await s.api.waitFor({...base, status: 'initiated'}, {...s.opts, timeoutMs: 10_000}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(WaitTimeoutError)
    expect(s.polls()).toBeGreaterThan(3)
  })

  it('an abort (Ctrl-C) stops the wait with the last state, exit 130', async () => {
    const s = scripted(['approved', 'initiated'])
    const stop = new AbortController()
    const err = await s.api
      .waitFor(base, {...s.opts, timeoutMs: 60_000, signal: stop.signal, onStatus: () => stop.abort()})
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(WaitInterruptedError)
    expect((err as WaitInterruptedError).exitCode).toBe(130)
    expect((err as WaitInterruptedError).message).toBe('Stopped waiting; transfer t1 is initiated.')
  })

  it('approved (queued for initiation) times out, exit 7, with the last state', async () => {
    const s = scripted(['approved'])
    const err = await s.api.waitFor(base, {...s.opts, timeoutMs: 5_000}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(WaitTimeoutError)
    const w = err as WaitTimeoutError
    expect(w.exitCode).toBe(ExitCode.NETWORK)
    expect(w.last.status).toBe('approved')
    expect(w.message).toMatch(/last status: approved/)
    expect(w.toJSON()).toMatchObject({last_status: 'approved', transfer_id: 't1'})
    expect(s.clock()).toBe(5_000)
  })

  it('a created transfer awaits approval: nothing to wait for', async () => {
    const s = scripted([])
    const r = await s.api.waitFor({...base, status: 'created'}, {...s.opts, timeoutMs: 5_000})
    expect(r.outcome).toBe('awaiting_approval')
    expect(s.polls()).toBe(0)
  })

  it('keeps the last known state while the transfer is missing from the list', async () => {
    const s = scripted([undefined, undefined, 'settled'])
    const r = await s.api.waitFor(base, {...s.opts, timeoutMs: 60_000})
    expect(r.transfer.status).toBe('settled')
  })

  it('never sleeps past the deadline', async () => {
    const s = scripted(['approved'])
    await expect(s.api.waitFor(base, {...s.opts, timeoutMs: 2_500})).rejects.toBeInstanceOf(WaitTimeoutError)
    expect(s.clock()).toBe(2_500)
  })

  it('final statuses', () => {
    expect(['settled', 'failed', 'canceled', 'SETTLED'].every(isFinalTransferStatus)).toBe(true)
    expect(['created', 'approved', 'initiated', 'debited'].some(isFinalTransferStatus)).toBe(false)
  })
})
