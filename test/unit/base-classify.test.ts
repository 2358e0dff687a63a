import {Errors, Flags, Parser} from '@oclif/core'
import {describe, expect, it} from 'vitest'
import {classify} from '../../src/base-command.js'
import {ApiError, AuthError, NetworkError, NotConfirmedError, PartialError, ResponseError, UsageError} from '../../src/errors.js'

async function parseError(argv: string[]): Promise<unknown> {
  try {
    await Parser.parse(argv, {flags: {n: Flags.integer(), req: Flags.string({required: argv.length === 0})}, args: {}, strict: true})
  } catch (err) {
    return err
  }
  throw new Error('expected the parser to fail')
}

function expectOneLine(line: string): void {
  expect(line).not.toContain('\n')
  expect(line.trim()).not.toBe('')
}

describe('classify', () => {
  it.each([
    [400, 'VALIDATION_ERROR', 8],
    [401, 'AUTHENTICATION_ERROR', 3],
    [403, 'AUTHORIZATION_ERROR', 3],
    [404, 'NOT_FOUND', 4],
    [409, 'IDEMPOTENCY_KEY_CONFLICT', 5],
    [422, undefined, 8],
    [429, undefined, 7],
    [500, undefined, 1],
    [503, undefined, 1],
  ])('maps an ApiError %d %s to exit %d', (status, errorCode, code) => {
    const err = new ApiError({status, errorCode, message: 'it failed', requestId: 'req_1'})
    const r = classify(err)
    expect(r.code).toBe(code)
    expect(r.line).toBe(`${status}${errorCode ? ` ${errorCode}` : ''}: it failed (request req_1)`)
    expect(r.json).toMatchObject({type: 'ApiError', status, message: 'it failed', request_id: 'req_1', exit_code: code})
    if (errorCode) expect(r.json.error_code).toBe(errorCode)
  })

  it('keeps ApiError details in the JSON object', () => {
    const details = [{field: 'amount', message: 'must be positive'}]
    const r = classify(new ApiError({status: 400, errorCode: 'VALIDATION_ERROR', message: 'amount: must be positive', details}))
    expect(r.line).toBe('400 VALIDATION_ERROR: amount: must be positive')
    expect(r.json.details).toEqual(details)
    expect(JSON.parse(JSON.stringify(r.json))).toEqual(r.json)
  })

  it('maps a UsageError to exit 2 with its message', () => {
    const r = classify(new UsageError('Amount "0" is zero: amounts must be positive.'))
    expect(r).toEqual({
      code: 2,
      line: 'Amount "0" is zero: amounts must be positive.',
      json: {type: 'UsageError', message: 'Amount "0" is zero: amounts must be positive.', exit_code: 2},
    })
  })

  it('maps a NetworkError to exit 7 with its code', () => {
    const r = classify(new NetworkError('GET /api/x: could not reach http://127.0.0.1:9 (ECONNREFUSED) after 3 attempts.', 'ECONNREFUSED'))
    expect(r.code).toBe(7)
    expect(r.line).toContain('could not reach')
    expect(r.json).toEqual({type: 'NetworkError', message: r.line, exit_code: 7, code: 'ECONNREFUSED'})
  })

  it('maps the other payops errors to their exit codes', () => {
    expect(classify(new ResponseError('bad JSON', 200, 'req_2'))).toMatchObject({code: 1, line: 'bad JSON', json: {type: 'ResponseError', status: 200, request_id: 'req_2'}})
    expect(classify(new AuthError('No API key')).code).toBe(3)
    expect(classify(new NotConfirmedError('Not confirmed')).code).toBe(3)
    expect(classify(new PartialError('2 of 3 failed')).code).toBe(6)
  })

  it.each([
    [['--nope', 'x'], 'Nonexistent flag: --nope'],
    [['extra'], 'Unexpected argument: extra'],
    [['--n', 'abc'], '--n: expected an integer but received: abc'],
    [[], 'Missing required flag req'],
  ])('maps a real oclif parse error for %j to exit 2 and one line', async (argv, text) => {
    const err = await parseError(argv)
    expect((err as {oclif?: {exit?: number}}).oclif?.exit).toBe(2)
    const r = classify(err)
    expect(r.code).toBe(2)
    expectOneLine(r.line)
    expect(r.line).toContain(text)
    expect(r.line).toContain('--help')
    expect(r.line.match(/--help/g)).toHaveLength(1)
    expect(r.json).toEqual({type: 'UsageError', message: r.line, exit_code: 2})
  })

  it('maps oclif-style objects with exit 2 or 1 to the usage exit code', () => {
    expect(classify({oclif: {exit: 2}, message: 'Missing 1 required arg:\nid'}).code).toBe(2)
    expect(classify(Object.assign(new Error('bad flag'), {oclif: {exit: 1}})).code).toBe(2)
    const r = classify((() => {
      try {
        Errors.error('bad thing', {exit: 2})
      } catch (e) {
        return e
      }
    })())
    expect(r.code).toBe(2)
    expect(r.line).toContain('bad thing')
  })

  it('maps a multi-line oclif message to a single line', () => {
    const r = classify({oclif: {exit: 2}, message: 'Missing 1 required arg:\nid  move id\nSee more help with --help'})
    expectOneLine(r.line)
    expect(r.line).toContain('Missing 1 required arg')
    expect(r.code).toBe(2)
  })

  it('maps a plain Error to exit 1 with the first line and a --debug hint', () => {
    const r = classify(new TypeError('Cannot read properties of undefined\n    at foo (x.js:1:1)'))
    expect(r.code).toBe(1)
    expect(r.line).toBe('Unexpected error: Cannot read properties of undefined (run with --debug for details)')
    expect(r.json).toEqual({type: 'UnexpectedError', message: 'Cannot read properties of undefined\n    at foo (x.js:1:1)', exit_code: 1})
  })

  it.each([['a string', 'a string'], [null, 'null'], [undefined, 'undefined'], [42, '42']])('maps the thrown value %j to exit 1', (value, text) => {
    const r = classify(value)
    expect(r.code).toBe(1)
    expect(r.line).toBe(`Unexpected error: ${text} (run with --debug for details)`)
    expectOneLine(r.line)
  })

  it('does not treat an object with a non-numeric oclif exit as a usage error', () => {
    expect(classify(Object.assign(new Error('odd'), {oclif: {exit: 'x'}})).code).toBe(1)
    expect(classify(Object.assign(new Error('odd'), {oclif: {}})).code).toBe(1)
  })
})
