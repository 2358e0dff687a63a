import {describe, expect, it} from 'vitest'
import {ApiError} from '../../src/errors.js'
import {alreadyDone, settleCommand, shellArg, stateInRefusal} from '../../src/movements/settle.js'
import type {History, Plan} from '../../src/movements/types.js'

const NOW = Date.parse('2026-11-23T23:59:00Z')

describe('shellArg', () => {
  it('leaves safe words bare and single-quotes the rest so a shell reads them back', () => {
    expect(shellArg('5f0c-1a2b')).toBe('5f0c-1a2b')
    expect(shellArg('po=PO-7')).toBe('po=PO-7')
    expect(shellArg('Globex Corp')).toBe(`'Globex Corp'`)
    expect(shellArg(`O'Brien; rm -rf /`)).toBe(`'O'\\''Brien; rm -rf /'`)
    expect(shellArg('{"a":1}')).toBe(`'{"a":1}'`)
  })
})

describe('settleCommand', () => {
  it('repeats a create with the same key, its amount in minor units and every detail', () => {
    expect(settleCommand({kind: 'move.create', from: 'A', to: 'B', amount: {decimal: '1.50'}, autoApprove: false, metadata: {inv: 'I 7'}}, {key: 'K', minor: 150, currency: 'USD', now: NOW})).toBe(
      `payops moves create --from A --to B --amount-minor 150 --no-auto-approve --metadata 'inv=I 7' --idempotency-key K`,
    )
    expect(
      settleCommand(
        {kind: 'transfer.create', from: 'A', to: 'B', amount: {minor: 9}, currency: 'usd', rail: 'wire', autoApprove: true, scheduledDate: '2026-12-24', metadata: {n: 1, payops_idempotency_key: 'K'}},
        {key: 'K', minor: 9, currency: 'USD', now: NOW},
      ),
    ).toBe(`payops transfers create --from A --to B --amount-minor 9 --currency USD --rail wire --scheduled-date 2026-12-24 --metadata-json '{"n":1}' --idempotency-key K`)
  })

  it('pins a credit\'s transaction date (the API defaults it to the day of sending)', () => {
    expect(settleCommand({kind: 'credit.simulate', account: 'ACC', rail: 'wire', amount: {minor: 5}, senderInfo: 'Globex Corp'}, {key: 'K', minor: 5, now: NOW})).toBe(
      `payops treasury simulate-credit ACC --rail wire --amount-minor 5 --sender-info 'Globex Corp' --transaction-date 2026-11-23 --idempotency-key K`,
    )
  })

  it('repeats an approve or a cancel as it is', () => {
    expect(settleCommand({kind: 'move.cancel', id: 'M'}, {key: null, now: NOW})).toBe('payops moves cancel M')
    expect(settleCommand({kind: 'move.approve', id: 'M'}, {key: null, now: NOW})).toBe('payops moves approve M')
    expect(settleCommand({kind: 'transfer.approve', id: 'T'}, {key: null, now: NOW})).toBe('payops transfers approve T')
  })
})

describe('stateInRefusal', () => {
  it.each([
    ['move cannot be canceled in status canceled', 'canceled'],
    ['Move cannot be approved in status SETTLED', 'settled'],
    ['account transfer cannot be approved in status initiated', 'initiated'],
    ['move cannot be cancelled in state: cancelled', 'canceled'],
    ['move cannot be approved in its current state', undefined],
    ['invalid move id', undefined],
  ])('%j -> %j', (message, state) => {
    expect(stateInRefusal(message)).toBe(state)
  })
})

describe('alreadyDone', () => {
  const history = (lost?: {time: string}): History => ({byKey: () => undefined, byResource: () => undefined, claimOf: () => undefined, movedSince: () => new Map(), lostAnswer: () => lost})
  const plan = (request: Plan['request'], audit: Partial<Plan['audit']> = {}): Plan =>
    ({
      request,
      noun: 'move',
      idempotencyKey: null,
      keyGenerated: false,
      audit: {method: 'DELETE', path: '/p', amount_in_minor_units: null, currency_code: null, from: null, to: null, ...audit},
    }) as unknown as Plan
  const refusal = (message: string, status = 400) => new ApiError({status, errorCode: 'VALIDATION_ERROR', message})

  it('reads the state asked for as done, and only that state', () => {
    expect(alreadyDone(plan({kind: 'move.cancel', id: 'M'}), refusal('move cannot be canceled in status canceled'), history())).toMatchObject({status: 'canceled', resource: {id: 'M', status: 'canceled'}})
    expect(alreadyDone(plan({kind: 'move.cancel', id: 'M'}), refusal('move cannot be canceled in status settled'), history())).toBeUndefined()
    expect(alreadyDone(plan({kind: 'move.approve', id: 'M'}), refusal('move cannot be approved in status approved'), history())).toBeUndefined()
    expect(alreadyDone(plan({kind: 'move.approve', id: 'M'}), refusal('move cannot be approved in status canceled'), history())).toBeUndefined()
    expect(alreadyDone(plan({kind: 'transfer.approve', id: 'T'}), refusal('account transfer cannot be approved in status settled'), history())?.status).toBe('settled')
    // Not a 400, or not an ApiError: left as it is.
    expect(alreadyDone(plan({kind: 'move.cancel', id: 'M'}), refusal('move cannot be canceled in status canceled', 409), history())).toBeUndefined()
    expect(alreadyDone(plan({kind: 'move.cancel', id: 'M'}), new Error('move cannot be canceled in status canceled'), history())).toBeUndefined()
  })

  it('names this machine\'s earlier attempt whose answer was lost, without claiming it was the cause', () => {
    const done = alreadyDone(plan({kind: 'move.approve', id: 'M'}, {amount_in_minor_units: 700, currency_code: 'USD'}), refusal('move cannot be approved in status settled'), history({time: '2026-11-23T12:00:00.123Z'}))
    expect(done?.sentence).toBe('Move M (7.00 USD) is already settled. Nothing was moved now. The approve this machine sent at 2026-11-23 12:00:00Z lost its answer; it took effect, unless another request settled the move first.')
    expect(alreadyDone(plan({kind: 'move.approve', id: 'M'}), refusal('move cannot be approved in status settled'), history())?.sentence).toBe('Move M is already settled. Nothing was moved now. It was settled before this request.')
  })

  it('a duplicate sandbox reference is "already credited" only for this machine\'s lost request with that key, amount and destination', () => {
    const credit = (key: string, generated = false) =>
      ({
        request: {kind: 'credit.simulate', account: 'ACC', rail: 'wire', amount: {minor: 5}},
        noun: 'simulated credit',
        idempotencyKey: key,
        keyGenerated: generated,
        audit: {method: 'POST', path: '/p', amount_in_minor_units: 5, currency_code: 'USD', from: null, to: 'ACC'},
      }) as unknown as Plan
    const dup = new ApiError({status: 409, errorCode: 'DUPLICATE_SANDBOX_REFERENCE', message: 'duplicate sandbox reference'})
    const lost = (amount: number): History => ({byKey: () => undefined, byResource: () => undefined, claimOf: () => undefined, movedSince: () => new Map(), lostAnswer: () => ({time: '2026-11-23T12:00:00Z', amount_in_minor_units: amount, to: 'ACC'})})
    expect(alreadyDone(credit('K'), dup, lost(5))?.sentence).toMatch(/^Already credited: the simulated credit of 0\.05 USD to ACC this machine sent at .* with sandbox reference K took effect/)
    expect(alreadyDone(credit('K'), dup, lost(6))).toBeUndefined()
    expect(alreadyDone(credit('K', true), dup, lost(5))).toBeUndefined()
    expect(alreadyDone(credit('K'), dup, history())).toBeUndefined()
  })
})
