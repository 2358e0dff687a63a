import {describe, expect, it} from 'vitest'
import {BankTransaction, SimulateCreditRequest, UpdateLabelRequest} from '../../src/api/schemas/treasury.js'
import {AccountTransfer, TransferCreateRequest, TransfersQuery, expandRails} from '../../src/api/schemas/transfers.js'
import {validateTransferCreate} from '../../src/api/transfers.js'
import {validateSimulateCredit} from '../../src/api/treasury.js'
import {UsageError} from '../../src/errors.js'

const transfer = {from_account_id: 'a', to_account_id: 'b', amount_in_minor_units: 100, currency_code: 'USD', rail: 'wire'}

describe('treasury schemas', () => {
  it('bank transactions keep unknown fields omitted (no nulls invented)', () => {
    const t = BankTransaction.parse({id: 'x', amount_in_minor_units: 5, currency_code: 'USD', description: 'FEE'})
    expect(Object.keys(t).sort()).toEqual(['amount_in_minor_units', 'currency_code', 'description', 'id'])
    expect(JSON.stringify(t)).not.toMatch(/null/)
  })

  it('bank transactions absorb the deprecated amount and upper-case direction', () => {
    const t = BankTransaction.parse({id: 'x', amount_in_cents: 5, currency_code: 'USD', description: 'FEE', direction: 'CREDIT', extra: 1})
    expect(t).toMatchObject({amount_in_minor_units: 5, direction: 'credit', extra: 1})
  })

  it('labels are trimmed, required, at most 100 characters', () => {
    expect(UpdateLabelRequest.parse({label: '  Ops  '})).toEqual({label: 'Ops'})
    expect(UpdateLabelRequest.safeParse({label: '   '}).success).toBe(false)
    expect(UpdateLabelRequest.safeParse({}).success).toBe(false)
    expect(UpdateLabelRequest.safeParse({label: 7}).success).toBe(false)
    expect(UpdateLabelRequest.safeParse({label: 'x'.repeat(100)}).success).toBe(true)
    expect(UpdateLabelRequest.safeParse({label: 'x'.repeat(101)}).success).toBe(false)
  })

  it('simulated credits: rail, positive amount, real dates, sender_info <= 200, subaccount UUID', () => {
    expect(SimulateCreditRequest.safeParse({rail: 'wire', amount_in_minor_units: 1}).success).toBe(true)
    expect(SimulateCreditRequest.safeParse({rail: 'rtp', amount_in_minor_units: 1}).success).toBe(false)
    expect(SimulateCreditRequest.safeParse({rail: 'wire', amount_in_minor_units: 0}).success).toBe(false)
    expect(SimulateCreditRequest.safeParse({rail: 'wire', amount_in_minor_units: 1.5}).success).toBe(false)
    expect(SimulateCreditRequest.safeParse({rail: 'wire', amount_in_minor_units: 1, transaction_date: '2026-02-30'}).success).toBe(false)
    expect(SimulateCreditRequest.safeParse({rail: 'wire', amount_in_minor_units: 1, sender_info: 'x'.repeat(200)}).success).toBe(true)
    expect(SimulateCreditRequest.safeParse({rail: 'wire', amount_in_minor_units: 1, sender_info: 'x'.repeat(201)}).success).toBe(false)
    expect(SimulateCreditRequest.safeParse({rail: 'wire', amount_in_minor_units: 1, subaccount_id: 'nope'}).success).toBe(false)
    expect(() => validateSimulateCredit({rail: 'wire', amount_in_minor_units: 1, sender_info: 'x'.repeat(201)})).toThrow(UsageError)
  })
})

describe('transfer schemas', () => {
  it('expands the grouped rail literals', () => {
    expect([...expandRails(['ach'])].sort()).toEqual(['same_day_ach', 'standard_ach'])
    expect([...expandRails(['instant', 'wire'])].sort()).toEqual(['instant_bank', 'instant_card', 'wire'])
    expect(expandRails(['all']).size).toBe(5)
  })

  it('create: same account, bad rail, bad currency, non-positive amount are refused', () => {
    expect(TransferCreateRequest.safeParse(transfer).success).toBe(true)
    expect(TransferCreateRequest.safeParse({...transfer, to_account_id: 'a'}).error?.issues[0].message).toMatch(/invalid account pair/)
    expect(TransferCreateRequest.safeParse({...transfer, rail: 'rtp'}).error?.issues[0].message).toMatch(/unsupported rail/)
    expect(TransferCreateRequest.safeParse({...transfer, currency_code: 'usd'}).success).toBe(false)
    expect(TransferCreateRequest.safeParse({...transfer, amount_in_minor_units: -1}).success).toBe(false)
    expect(TransferCreateRequest.safeParse({...transfer, scheduled_date: '2026-13-01'}).success).toBe(false)
    expect(() => validateTransferCreate({...transfer, to_account_id: 'a'})).toThrow(UsageError)
  })

  it('list query: repeated params become arrays, invalid values fail', () => {
    const q = TransfersQuery.parse({status: 'settled', rail: ['ach', 'wire'], account_id: 'a', amount_in_minor_units_gte: '10'})
    expect(q).toMatchObject({status: ['settled'], rail: ['ach', 'wire'], account_id: ['a'], amount_in_minor_units_gte: 10})
    expect(TransfersQuery.safeParse({status: 'lost'}).success).toBe(false)
    expect(TransfersQuery.safeParse({rail: 'carrier_pigeon'}).success).toBe(false)
    expect(TransfersQuery.safeParse({amount_in_minor_units_lte: '1.5'}).success).toBe(false)
    expect(TransfersQuery.safeParse({created_at_gte: 'yesterday'}).success).toBe(false)
  })

  it('transfers normalise upper-case status and keep unknown fields', () => {
    expect(AccountTransfer.parse({...transfer, id: 't', status: 'SETTLED', extra: true})).toMatchObject({status: 'settled', extra: true})
  })
})
