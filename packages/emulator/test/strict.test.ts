/**
 * The strict answers (`emulator start --strict`, src/strict/strict.ts): the least of an answer
 * where the spec shows none, and lists without what the spec does not promise to echo.
 */
import {describe, expect, it} from 'vitest'
import {strictBody} from '../src/strict/strict.js'

const listed = {id: 't1', from_account_id: 'a', to_account_id: 'b', amount_in_minor_units: 5, currency_code: 'USD', rail: 'wire', status: 'approved'}
const transfer = {...listed, client_metadata: {k: 'v'}}

describe('strict answers', () => {
  it('lists: no client_metadata on any item, no total_count, previous_cursor or null warning; the cursor stays', () => {
    const body = {data: [transfer], has_more: true, next_cursor: 'c2', previous_cursor: null, total_count: 9, warning: null}
    expect(strictBody('GET', '/api/treasury/account-transfers', 200, body)).toEqual({data: [listed], has_more: true, next_cursor: 'c2'})
    expect(body.data[0].client_metadata).toEqual({k: 'v'})
  })

  it('where the spec shows no answer: the status alone, or the least of one', () => {
    expect(strictBody('POST', '/api/subaccounts/move/:move_id/approve', 201, {data: {id: 'm'}})).toEqual({})
    expect(strictBody('POST', '/api/subaccounts/move/:move_id/approve', 207, {data: {id: 'm'}, warning: 'settlement failed'})).toEqual({warning: 'settlement failed'})
    expect(strictBody('DELETE', '/api/subaccounts/move/:move_id', 200, {data: {id: 'm'}})).toBeUndefined()
    expect(strictBody('POST', '/api/treasury/account-transfers/:account_transfer_id/approve', 200, {data: transfer})).toBeUndefined()
    expect(strictBody('POST', '/api/treasury/account-transfers', 202, {data: transfer})).toBeUndefined()
    expect(strictBody('POST', '/api/treasury/account-transfers', 201, {data: transfer})).toEqual({data: listed})
    expect(strictBody('POST', '/api/webhooks', 201, {data: {id: 'w', secret: 'whsec_x'}})).toEqual({data: {id: 'w'}})
    const balance = {account_id: 'a', currency_code: 'USD', current_balance_in_minor_units: 7, available_balance_in_minor_units: 5, as_of: '2026-01-01T00:00:00Z'}
    expect(strictBody('GET', '/api/treasury/accounts/:account_id/balance', 200, {data: balance})).toEqual({data: {current_balance_in_minor_units: 7, currency_code: 'USD'}})
  })

  it('errors and answers that are not objects pass as they are', () => {
    const error = {error_code: 'VALIDATION_ERROR', message: 'no'}
    expect(strictBody('POST', '/api/subaccounts/move/:move_id/approve', 400, error)).toBe(error)
    expect(strictBody('DELETE', '/api/subaccounts/move/:move_id', 204, undefined)).toBeUndefined()
  })
})
