/**
 * Interactive paths on a terminal, in-process (a scripted prompter answers): the rotate-secret
 * confirmation and `transfers create --wait` following the transfer. The same two in a real
 * pseudo-terminal (the prompt drawn, the spinner) are in test/smoke/terminal.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {fakeClock, knownSecrets, run, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'

let emu: Emulator
const dir = tempDir()

beforeAll(async () => {
  emu = await startEmulator()
  await run(['profiles', 'add', 'sandbox', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {configDir: dir.path, input: emu.keys.test})
})
afterAll(async () => {
  await emu?.stop()
  dir.cleanup()
})

/** The API requests `fn` made the emulator receive (at most its last ones). */
async function requestsOf<T>(fn: () => Promise<T>): Promise<{result: T; requests: Array<{method: string; path: string}>}> {
  const before = (await emu.requestLog()).count
  const result = await fn()
  const after = await emu.requestLog()
  const sent = after.count - before
  return {result, requests: sent === 0 ? [] : after.recent.slice(-sent)}
}

describe('in a terminal', () => {
  it('rotate-secret shows the new secret, then asks before deleting the old endpoint', async () => {
    const created = await runAs(emu, 'test', ['webhooks', 'create', '--url', 'https://example.com/hooks', '--event-types', 'payin.settled', '-o', 'json'], {allowSecrets: true})
    const old = created.json()
    knownSecrets.add(old.secret)
    const question = `Your receiver now accepts the new secret? Delete the old endpoint ${old.id} now?`
    const {result: declined, requests} = await requestsOf(() => run(['webhooks', 'rotate-secret', old.id], {configDir: dir.path, tty: true, answers: ['n']}))
    expect(declined.asked).toEqual([question])
    // Declined: the twin was created, the old endpoint was not deleted.
    expect(requests.filter((r) => r.method === 'DELETE')).toEqual([])
    const fresh = /whsec_[A-Za-z0-9_-]+/.exec(declined.stdout)?.[0]
    expect(fresh, declined.stdout + declined.stderr).toBeDefined()
    expect(fresh).not.toBe(old.secret)
    knownSecrets.add(fresh!)
    expect(declined.code, declined.stderr).toBe(0)
    // The secret is shown before the question: stored first, then answered.
    expect(declined.stdout).toMatch(new RegExp(`New signing secret of [^:]+: ${fresh}`))
    expect(declined.stderr).toMatch(/Store it now; it is not shown again/)
    expect(declined.stderr).toMatch(new RegExp(`The old endpoint ${old.id} is kept`))
    let ids = (await runAs(emu, 'test', ['webhooks', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n').map((l) => JSON.parse(l).id)
    expect(ids).toContain(old.id)
    expect(ids.length).toBeGreaterThanOrEqual(2)
    const accepted = await run(['webhooks', 'rotate-secret', old.id], {configDir: dir.path, tty: true, answers: ['y']})
    expect(accepted.code, accepted.stderr).toBe(0)
    expect(accepted.asked).toEqual([question])
    expect(accepted.stderr).toMatch(/cannot be shown again/)
    ids = (await runAs(emu, 'test', ['webhooks', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n').map((l) => JSON.parse(l).id)
    expect(ids).not.toContain(old.id)
  })

  it('transfers create --wait follows the transfer on the terminal and ends with the settled transfer', async () => {
    const accounts = (await run(['treasury', 'accounts', 'list', '--order', 'asc'], {configDir: dir.path})).json() as Array<{id: string; currency_code: string}>
    const [usd1, usd2] = accounts.filter((a) => a.currency_code === 'USD')
    await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: true, delay_ms: 300})
    try {
      // The polls wait on a fake clock (no wall-clock sleeping); the emulator settles in its own time.
      const clock = fakeClock()
      const r = await run(
        ['transfers', 'create', '--from', usd1.id, '--to', usd2.id, '--amount', '5.00', '--currency', 'USD', '--rail', 'wire', '--wait', '--poll-interval', '100', '--wait-timeout', '86400', '-o', 'json'],
        {configDir: dir.path, tty: true, clock},
      )
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).toMatch(/Waiting for transfer [0-9a-f-]{36}/)
      expect(r.stdout).toMatch(/"status": "settled"/)
      expect(r.json()).toMatchObject({status: 'settled', amount_in_minor_units: 500})
      expect(clock.slept()).toBeGreaterThan(0)
    } finally {
      await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: false})
    }
  })
})

describe('fitted to the terminal', () => {
  const cells = (line: string) => line.trim().split(/\s{2,}/)

  it('position shows no header twice and cuts no account label mid-word', async () => {
    const labels = ((await run(['treasury', 'accounts', 'list', '--all', '-o', 'json'], {configDir: dir.path})).json() as Array<{label: string}>).map((a) => a.label)
    const r = await run(['position', '--reporting-currency', 'USD', '--no-color'], {configDir: dir.path, tty: true, columns: 80})
    expect(r.code, r.stderr).toBe(0)
    const rows = r.stdout.trimEnd().split('\n')
    for (const l of rows) expect(l.length, r.stdout).toBeLessThanOrEqual(80)
    const headers = cells(rows[0])
    expect(new Set(headers).size, rows[0]).toBe(headers.length)
    expect(headers.join(' ')).not.toMatch(/…/)
    const shown = rows.slice(1).filter((l) => l.startsWith('account')).map((l) => cells(l)[1])
    expect(shown).toHaveLength(labels.length)
    for (const name of shown) {
      if (!name.endsWith('…')) {
        expect(labels).toContain(name)
        continue
      }
      // Cut between two words: what is shown is a label's words up to a space.
      const head = name.slice(0, -1)
      expect(labels.some((l) => l.startsWith(head) && l[head.length] === ' '), name).toBe(true)
    }
  })

  it('a time is shown whole or not at all', async () => {
    const accounts = (await run(['treasury', 'accounts', 'list', '--order', 'asc', '-o', 'json'], {configDir: dir.path})).json() as Array<{id: string; currency_code: string}>
    const [usd1, usd2] = accounts.filter((a) => a.currency_code === 'USD')
    await run(['transfers', 'create', '--from', usd1.id, '--to', usd2.id, '--amount', '1.00', '--currency', 'USD', '--rail', 'wire', '--no-auto-approve'], {configDir: dir.path})
    const r = await run(['transfers', 'list', '--columns', 'status,created_at,updated_at,rail', '--no-color'], {configDir: dir.path, tty: true, columns: 60})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(/\d{4}-\d{2}-\d[\dT:.-]*…/)
    expect(r.stdout).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/)
  })
})
