/**
 * The outcome contract, end to end: every sentence about money is true in the retry and replay
 * cases, a key that names another movement is refused, and every path to money (the raw `api`
 * command too) passes the same guards. In-process runs, real HTTP, the in-process emulator; the
 * typed confirmation in a real pseudo-terminal (and Ctrl-C at it) is in test/smoke/terminal.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectNothingSent, outcomeOf, run, startEmulator, tempDir, type Emulator, type RunOptions, expectOnlyRequests, subaccountLookup} from '../support/index.js'
import {readAudit} from '../../src/audit/index.js'

let emu: Emulator
const dir = tempDir()
let a: string
let b: string
let c: string
let la: string
let lb: string
let lc: string

const cli = (args: string[], opts: RunOptions = {}) => run(args, {configDir: dir.path, ...opts})
/** Runs `fn` and asserts that no API request reached the emulator and this config's audit trail did not grow. */
const refused = <T>(fn: () => Promise<T>, configDir = dir.path) => expectNothingSent(emu, fn, configDir)
/**
 * Runs `fn` and asserts that the emulator received exactly `reads` (`GET /api/…` lookups a plan
 * makes to read a currency or a name, which change nothing; in any order) and nothing else, and
 * that the audit trail did not grow: no request that moves money or changes anything was sent.
 */
const onlyReads = <T>(reads: string[], fn: () => Promise<T>, configDir = dir.path) => expectOnlyRequests(emu, reads, fn, configDir)
const lookup = subaccountLookup
const totals = async (id: string, profile = 'sandbox') => {
  const s = (await cli(['subaccounts', 'get', id, '-p', profile])).json()
  return {incoming: s.total_incoming_in_minor_units as number, outgoing: s.total_outgoing_in_minor_units as number}
}
const auditRecords = () => readAudit(dir.path) as unknown as Array<Record<string, unknown>>
const faults = (body: unknown) => emu.control('POST', '/_emulator/faults', body)

beforeAll(async () => {
  emu = await startEmulator()
  await cli(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {input: emu.keys.test})
  await cli(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin'], {input: emu.keys.live})
  ;[a, b, c] = await Promise.all(['T-A', 'T-B', 'T-C'].map(async (name) => (await cli(['subaccounts', 'create', '--name', name])).json().id as string))
  ;[la, lb, lc] = await Promise.all(['L-A', 'L-B', 'L-C'].map(async (name) => (await cli(['subaccounts', 'create', '--name', name, '-p', 'prod', '--yes'])).json().id as string))
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

describe('created, replayed, advanced', () => {
  it('a first attempt committed but answered 500 is "created" by this run, never "replayed"', async () => {
    const before = await totals(b)
    await faults({queue: [{kind: '500', phase: 'after'}], methods: ['POST']})
    const r = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '3.00'])
    expect(r.code, r.stderr).toBe(0)
    const o = outcomeOf(r)
    expect(o).toMatchObject({kind: 'created', id: r.json().id, status: 'settled'})
    expect(r.stderr).not.toMatch(/Replayed|nothing (new )?was moved/)
    expect((await totals(b)).incoming).toBe(before.incoming + 300)
  })

  it('the same after-commit fault with the operator\'s own key is "created" too', async () => {
    const key = `own-${Date.now()}`
    await faults({queue: [{kind: '500', phase: 'after'}], methods: ['POST']})
    const r = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '3.00', '--idempotency-key', key])
    expect(r.code, r.stderr).toBe(0)
    expect(outcomeOf(r)).toMatchObject({kind: 'created', idempotency_key: key})
    // A later re-run with the key is the replay, and says so.
    const again = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '3.00', '--idempotency-key', key])
    expect(outcomeOf(again)).toMatchObject({kind: 'replayed', id: r.json().id})
  })

  it('on a terminal format the sentence is true: created, then replayed with "nothing was moved now"', async () => {
    const key = `tbl-${Date.now()}`
    const first = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.25', '--idempotency-key', key, '-o', 'table'])
    expect(first.code, first.stderr).toBe(0)
    // The sentence names the subaccounts payops has seen (created here) beside short ids.
    expect(first.stderr).toMatch(new RegExp(`Created move [0-9a-f-]{36}: 1\\.25 USD T-A \\(${a.slice(0, 8)}…\\) → T-B \\(${b.slice(0, 8)}…\\), settled\\.`))
    const again = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.25', '--idempotency-key', key, '-o', 'table'])
    expect(again.stderr).toMatch(new RegExp(`Replayed: Idempotency-Key ${key} already names move .*1\\.25 USD .*settled.*nothing was moved now`))
    expect(again.stderr).not.toMatch(/"outcome"/)
  })

  it('a replay that settles a created move is "advanced" and says it settled now', async () => {
    const key = `adv-${Date.now()}`
    const before = await totals(c)
    const created = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '4.00', '--no-auto-approve', '--idempotency-key', key])
    expect(outcomeOf(created)).toMatchObject({kind: 'created', status: 'created'})
    expect((await totals(c)).incoming).toBe(before.incoming)
    const replay = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '4.00', '--idempotency-key', key, '-o', 'table'])
    expect(replay.code, replay.stderr).toBe(0)
    expect(replay.stderr).toMatch(/which was awaiting approval: this run settled it now/)
    expect(replay.stderr).not.toMatch(/nothing was moved/)
    expect((await totals(c)).incoming).toBe(before.incoming + 400)
    // Once settled, a further replay moves nothing and says so.
    const table = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '4.00', '--idempotency-key', key, '-o', 'table'])
    expect(table.stderr).toMatch(/Replayed: .*nothing was moved now/)
    expect((await totals(c)).incoming).toBe(before.incoming + 400)
  }, 60_000)
})

describe('a 207 says what happened and what to do next', () => {
  it('approve with a failed settlement: approved, not settled, never "could not approve"; no false promise that a replay settles it', async () => {
    const before = await totals(c)
    const key = `stuck-${Date.now()}`
    const created = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '6.00', '--no-auto-approve', '--idempotency-key', key])
    const id = created.json().id as string
    await emu.control('POST', '/_emulator/fail-next-settlement', {count: 1})
    const r = await cli(['moves', 'approve', id, '-o', 'table'])
    expect(r.code).toBe(6)
    expect(r.stderr).not.toMatch(/could not approve|continue its settlement/)
    expect(r.stderr).toMatch(/its settlement failed: it stays approved: the API can no longer approve or cancel it \(both answer 400\), and replaying its create returns it as it is; ask the provider to settle or fail it/)
    expect((await cli(['moves', 'cancel', id])).code).toBe(8)
    // The replay returns the approved move as it is and settles nothing: exit 6, "nothing was moved now".
    const replay = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '6.00', '--idempotency-key', key, '-o', 'table'])
    expect(replay.code, replay.stderr).toBe(6)
    expect(replay.stderr).toContain(`Replayed: Idempotency-Key ${key} already names move ${id} (6.00 USD`)
    expect(replay.stderr).toMatch(/approved but not settled\), made earlier; nothing was moved now\. It was not settled: it stays approved/)
    expect(replay.stderr).not.toMatch(/settled it now|Warning/)
    const json = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '6.00', '--idempotency-key', key])
    expect(json.code).toBe(6)
    expect(outcomeOf(json)).toMatchObject({kind: 'replayed', id, status: 'approved'})
    expect((await totals(c)).incoming).toBe(before.incoming)
  })
})

describe('a key that names another movement', () => {
  it('moves: other destination and amount are exit 5, naming both, and nothing moves', async () => {
    const key = `k-${Date.now()}`
    const first = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '7.00', '--idempotency-key', key])
    expect(first.code).toBe(0)
    const cBefore = await totals(c)
    const r = await cli(['moves', 'create', '--from', a, '--to', c, '--amount', '9.00', '--idempotency-key', key])
    expect(r.code).toBe(5)
    expect(r.stdout).toBe('')
    expect(r.stderr).toContain(`Idempotency-Key ${key} was used on this machine for move ${first.json().id} (7.00 USD ${a} → ${b}); this request (9.00 USD ${a} → ${c}) was not sent`)
    expect((await totals(c)).incoming).toBe(cBefore.incoming)
    const json = JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('{"error"'))!)
    expect(json.error).toMatchObject({type: 'ConflictError', exit_code: 5, kind: 'conflict', id: first.json().id, idempotency_key: key})
    // Refused from this machine's audit trail, before sending: the trail holds the first request only.
    expect(auditRecords().filter((x) => x.idempotency_key === key && x.kind === 'outcome').map((x) => x.outcome)).toEqual(['created'])
  })

  it('a key the trail knows for a created 1.00 move, reused with 9.99 to another destination: refused before sending, the first move untouched', async () => {
    const key = `kc-${Date.now()}`
    const first = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '--no-auto-approve', '--idempotency-key', key])
    expect(first.code, first.stderr).toBe(0)
    const before = {b: await totals(b), c: await totals(c)}
    const r = await onlyReads([lookup(a)], () => cli(['moves', 'create', '--from', a, '--to', c, '--amount', '9.99', '--idempotency-key', key]))
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toContain(`was used on this machine for move ${first.json().id} (1.00 USD ${a} → ${b}); this request (9.99 USD ${a} → ${c}) was not sent`)
    expect(await totals(b)).toEqual(before.b)
    expect(await totals(c)).toEqual(before.c)
    // The first move still awaits approval: nothing settled it.
    expect((await cli(['approvals', '--kind', 'moves'])).json().map((x: {id: string}) => x.id)).toContain(first.json().id)
  })

  it('the same key with other metadata only is refused too (the metadata would be silently the old one)', async () => {
    const key = `km-${Date.now()}`
    const first = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '2.00', '--metadata', 'ref=one', '--idempotency-key', key])
    expect(first.code, first.stderr).toBe(0)
    const r = await onlyReads([lookup(a)], () => cli(['moves', 'create', '--from', a, '--to', b, '--amount', '2.00', '--metadata', 'ref=two', '--idempotency-key', key]))
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr).toMatch(/other metadata\); this request .* was not sent/)
    const same = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '2.00', '--metadata', 'ref=one', '--idempotency-key', key])
    expect(same.code, same.stderr).toBe(0)
    expect(outcomeOf(same).kind).toBe('replayed')
  })

  it('a key whose earlier request made nothing (answered 404) is free for another movement', async () => {
    const key = `kf-${Date.now()}`
    const bad = await cli(['moves', 'create', '--from', a, '--to', '00000000-0000-4000-8000-000000000000', '--amount', '1.00', '--idempotency-key', key])
    expect(bad.code, bad.stderr).toBe(4)
    expect(auditRecords().filter((x) => x.idempotency_key === key).map((x) => [x.kind, x.status ?? null])).toEqual([['intent', null], ['outcome', 404]])
    const ok = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '--idempotency-key', key])
    expect(ok.code, ok.stderr).toBe(0)
  })

  it('transfers: another amount and rail under the same key are exit 5', async () => {
    const accounts = (await cli(['treasury', 'accounts', 'list'])).json() as Array<{id: string; currency_code: string}>
    const [main, other] = accounts.filter((x) => x.currency_code === 'USD')
    const key = `tk-${Date.now()}`
    const first = await cli(['transfers', 'create', '--from', main.id, '--to', other.id, '--amount', '20.00', '--currency', 'USD', '--rail', 'wire', '--idempotency-key', key])
    expect(first.code, first.stderr).toBe(0)
    const r = await cli(['transfers', 'create', '--from', main.id, '--to', other.id, '--amount', '2000.00', '--currency', 'USD', '--rail', 'standard_ach', '--idempotency-key', key])
    expect(r.code).toBe(5)
    expect(r.stderr).toMatch(/was used on this machine for account transfer .*20\.00 USD .*; this request \(2,000\.00 USD .* by standard_ach\) was not sent/)
  })
})

describe('the source currency', () => {
  it('--amount-minor with a --currency other than the source subaccount\'s is refused (exit 2), nothing moves', async () => {
    const before = await totals(b)
    const r = await onlyReads([lookup(a)], () => cli(['moves', 'create', '--from', a, '--to', b, '--amount-minor', '500', '--currency', 'JPY']))
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--currency JPY does not match the source subaccount's currency USD/)
    expect(await totals(b)).toEqual(before)
  })

  it('an --amount-minor move is recorded in the audit trail with its currency', async () => {
    const r = await cli(['moves', 'create', '--from', a, '--to', b, '--amount-minor', '250'])
    const id = r.json().id
    const recs = auditRecords().filter((x) => x.resource_id === id || (x.kind === 'intent' && x.amount_in_minor_units === 250))
    expect(recs.length).toBeGreaterThanOrEqual(2)
    for (const x of recs) expect(x).toMatchObject({currency_code: 'USD', amount_in_minor_units: 250, from: a, to: b})
  })
})

describe('payops api on money endpoints', () => {
  it('on a LIVE profile with limits, --yes does not pass the cap or the allow-list (exit 3), and nothing moves', async () => {
    await cli(['profiles', 'set', 'prod', 'max-amount', '100.00', 'USD'])
    await cli(['profiles', 'set', 'prod', 'allowed-destinations', lb])
    try {
      const before = await totals(lc, 'prod')
      const body = JSON.stringify({from_subaccount_id: la, to_subaccount_id: lc, amount_in_minor_units: 50_000_000})
      const r = await onlyReads([lookup(la), lookup(lc)], () => cli(['api', 'POST', '/api/subaccounts/move', '--input', '-', '-p', 'prod', '--yes'], {input: body}))
      expect(r.code).toBe(3)
      expect(r.stderr).toMatch(/500,000\.00 USD is over the max-amount 100\.00 USD of profile "prod"/)
      expect(await totals(lc, 'prod')).toEqual(before)
      // Spelling the path differently does not slip past the guard: it is refused before anything is sent.
      const odd = await onlyReads([], () => cli(['api', 'post', '/api//subaccounts/./MOVE/', '--input', '-', '-p', 'prod', '--yes'], {input: body}))
      expect(odd.code).toBe(2)
      expect(odd.stderr).toMatch(/needs a path in canonical form/)
      const upper = await onlyReads([lookup(la), lookup(lc)], () => cli(['api', 'post', '/api/subaccounts/MOVE', '--input', '-', '-p', 'prod', '--yes'], {input: body}))
      expect(upper.code).toBe(3)
      expect(await totals(lc, 'prod')).toEqual(before)
    } finally {
      await cli(['profiles', 'unset', 'prod', 'max-amount', 'USD'])
      await cli(['profiles', 'unset', 'prod', 'allowed-destinations'])
    }
  })

  it('sends an Idempotency-Key, classifies and audits like moves create; -H Idempotency-Key is used', async () => {
    const before = await totals(b)
    const r = await cli(['api', 'POST', '/api/subaccounts/move', '-f', `from_subaccount_id=${a}`, '-f', `to_subaccount_id=${b}`, '-F', 'amount_in_minor_units=111'])
    expect(r.code, r.stderr).toBe(0)
    const o = outcomeOf(r)
    expect(o).toMatchObject({kind: 'created', idempotency_key: expect.stringMatching(/^[0-9a-f-]{36}$/)})
    expect(r.json().data.id).toBe(o.id)
    expect((await totals(b)).incoming).toBe(before.incoming + 111)
    const intent = auditRecords().find((x) => x.kind === 'intent' && x.idempotency_key === o.idempotency_key)
    expect(intent).toMatchObject({method: 'POST', path: '/api/subaccounts/move', amount_in_minor_units: 111, currency_code: 'USD', from: a, to: b})
    const key = `raw-${Date.now()}`
    const one = await cli(['api', 'POST', '/api/subaccounts/move', '-f', `from_subaccount_id=${a}`, '-f', `to_subaccount_id=${b}`, '-F', 'amount_in_minor_units=112', '-H', `Idempotency-Key: ${key}`])
    const two = await cli(['api', 'POST', '/api/subaccounts/move', '-f', `from_subaccount_id=${a}`, '-f', `to_subaccount_id=${b}`, '-F', 'amount_in_minor_units=112', '-H', `Idempotency-Key: ${key}`])
    expect(outcomeOf(one)).toMatchObject({kind: 'created', idempotency_key: key})
    expect(outcomeOf(two)).toMatchObject({kind: 'replayed', idempotency_key: key, id: outcomeOf(one).id})
    expect((await totals(b)).incoming).toBe(before.incoming + 111 + 112)
  })

  it('a LIVE api move without a terminal needs --yes (exit 3); other headers and query strings are refused (exit 2)', async () => {
    const body = JSON.stringify({from_subaccount_id: la, to_subaccount_id: lb, amount_in_minor_units: 100})
    const r = await onlyReads([lookup(la), lookup(lb)], () => cli(['api', 'POST', '/api/subaccounts/move', '--input', '-', '-p', 'prod'], {input: body}))
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/amount:\s+1\.00 USD/)
    const h = await refused(() => cli(['api', 'POST', '/api/subaccounts/move', '--input', '-', '-H', 'X-Other: 1'], {input: JSON.stringify({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1})}))
    expect(h.code).toBe(2)
    const q = await refused(() => cli(['api', 'POST', '/api/subaccounts/move?auto_approve=false', '--input', '-'], {input: JSON.stringify({from_subaccount_id: a, to_subaccount_id: b, amount_in_minor_units: 1})}))
    expect(q.code).toBe(2)
    const bad = await refused(() => cli(['api', 'POST', '/api/subaccounts/move', '-f', `from_subaccount_id=${a}`]))
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/not a valid move/)
  })
})

describe('LIVE approvals against the documented interface', () => {
  it('the emulator serves no GET for one move', async () => {
    const created = await cli(['moves', 'create', '--from', a, '--to', b, '--amount', '1.00', '--no-auto-approve'])
    const res = await fetch(`${emu.baseUrl}/api/subaccounts/move/${created.json().id}`, {headers: {'x-api-key': emu.keys.test}})
    expect([404, 405]).toContain(res.status)
  })

  it('a move created from this machine is approved on LIVE with its amount from the audit trail', async () => {
    const before = await totals(lb, 'prod')
    const created = await cli(['moves', 'create', '--from', la, '--to', lb, '--amount', '2.50', '--no-auto-approve', '-p', 'prod', '--yes'])
    expect(created.code, created.stderr).toBe(0)
    const id = created.json().id
    const r = await cli(['moves', 'approve', id, '-p', 'prod', '--yes'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/amount: 2\.50 USD|2\.50 USD/)
    expect(outcomeOf(r)).toMatchObject({kind: 'advanced', id, status: 'settled'})
    expect((await totals(lb, 'prod')).incoming).toBe(before.incoming + 250)
    const rec = auditRecords().filter((x) => x.kind === 'outcome' && x.path === `/api/subaccounts/move/${id}/approve`)
    expect(rec).toHaveLength(1)
    expect(rec[0]).toMatchObject({status: 201, amount_in_minor_units: 250, currency_code: 'USD', from: la, to: lb, resource_status: 'settled'})
  })

  it('a move unknown to this machine: the summary says so; a profile with limits refuses it unless --override-limits', async () => {
    const other = tempDir()
    try {
      await run(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: other.path, input: emu.keys.live})
      const created = await cli(['moves', 'create', '--from', la, '--to', lb, '--amount', '3.00', '--no-auto-approve', '-p', 'prod', '--yes'])
      const id = created.json().id
      const plain = await refused(() => run(['moves', 'approve', id], {configDir: other.path}), other.path)
      expect(plain.code).toBe(3)
      expect(plain.stderr).toMatch(/unknown to this machine/)
      await run(['profiles', 'set', 'prod', 'max-amount', '100.00', 'USD'], {configDir: other.path})
      const limited = await refused(() => run(['moves', 'approve', id, '--yes'], {configDir: other.path}), other.path)
      expect(limited.code).toBe(3)
      expect(limited.stderr).toMatch(/unknown to this machine.*cannot be checked/)
      const over = await run(['moves', 'approve', id, '--yes', '--override-limits'], {configDir: other.path})
      expect(over.code, over.stderr).toBe(0)
      expect(outcomeOf(over)).toMatchObject({kind: 'advanced', id, status: 'settled'})
      const rec = readAudit(other.path)
      expect(rec.find((x) => x.kind === 'outcome')).toMatchObject({amount_in_minor_units: 300, currency_code: 'USD', from: la, to: lb})
    } finally {
      other.cleanup()
    }
  })

  it('a LIVE approve of an unknown id is exit 4', async () => {
    const r = await cli(['moves', 'approve', '00000000-0000-4000-8000-000000000000', '-p', 'prod', '--yes'])
    expect(r.code).toBe(4)
  })
})

describe('on a terminal', () => {
  // The same prompts in a real pseudo-terminal, and Ctrl-C at the typed confirmation: test/smoke/terminal.test.ts.
  const tty = {tty: true as const}

  it('a LIVE `api POST` move shows amount, from and to and wants the amount typed, not y', async () => {
    const before = await totals(lb, 'prod')
    const args = ['api', 'POST', '/api/subaccounts/move', '-F', `from_subaccount_id=${la}`, '-F', `to_subaccount_id=${lb}`, '-F', 'amount_in_minor_units=1234', '-p', 'prod']
    const no = await onlyReads([lookup(la), lookup(lb)], () => cli(args, {...tty, answers: ['y']}))
    expect(no.code).toBe(3)
    expect(no.asked).toEqual(['Type 12.34 to confirm this LIVE movement:'])
    expect(no.stderr).toMatch(/amount:\s+12\.34 USD/)
    expect(no.stderr).toContain(la)
    expect(no.stderr).toContain(lb)
    expect(no.stderr).toMatch(/Not confirmed: typed "y", expected 12\.34\. Nothing was sent\./)
    expect(await totals(lb, 'prod')).toEqual(before)
    const ok = await cli(args, {...tty, answers: ['12.34']})
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.asked).toEqual(['Type 12.34 to confirm this LIVE movement:'])
    expect(ok.stderr).toMatch(/Created move [0-9a-f-]{36}: 12\.34 USD/)
    expect((await totals(lb, 'prod')).incoming).toBe(before.incoming + 1234)
  })

  it('a LIVE approve of a move unknown here says so and wants the id\'s last 6 characters', async () => {
    const other = tempDir()
    try {
      await run(['profiles', 'add', 'prod', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: other.path, input: emu.keys.live})
      const id = (await cli(['moves', 'create', '--from', la, '--to', lb, '--amount', '5.00', '--no-auto-approve', '-p', 'prod', '--yes'])).json().id as string
      const tail = id.slice(-6)
      const wrong = await refused(() => run(['moves', 'approve', id], {configDir: other.path, ...tty, answers: ['5.00']}), other.path)
      expect(wrong.code).toBe(3)
      expect(wrong.asked).toEqual([`Type ${tail} to confirm this LIVE movement:`])
      expect(wrong.stderr).toMatch(/unknown to this machine/)
      const ok = await run(['moves', 'approve', id], {configDir: other.path, ...tty, answers: [tail]})
      expect(ok.code, ok.stderr).toBe(0)
      expect(ok.asked).toEqual([`Type ${tail} to confirm this LIVE movement:`])
      expect(ok.stderr).toMatch(new RegExp(`Approved move ${id} .*settled now`))
    } finally {
      other.cleanup()
    }
  })
})
