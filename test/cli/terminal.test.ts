/**
 * Interactive paths in a real pseudo-terminal: the rotate-secret confirmation and the spinner of
 * `transfers create --wait`.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {knownSecrets, run, runAs, startEmulator, tempDir, type Emulator} from '../support/index.js'
import {runInPty} from './pty.js'

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

describe('in a terminal', () => {
  it('rotate-secret shows the new secret, then asks before deleting the old endpoint', async () => {
    const created = await runAs(emu, 'test', ['webhooks', 'create', '--url', 'https://example.com/hooks', '--event-types', 'payin.settled', '-o', 'json'], {allowSecrets: true})
    const old = created.json()
    knownSecrets.add(old.secret)
    const env = {PAYOPS_CONFIG_DIR: dir.path}
    const declined = await runInPty(['webhooks', 'rotate-secret', old.id], [{when: /Delete the old endpoint/, answer: 'n'}], env)
    const fresh = /whsec_[A-Za-z0-9_-]+/.exec(declined.output)?.[0]
    expect(fresh, declined.output).toBeDefined()
    expect(fresh).not.toBe(old.secret)
    knownSecrets.add(fresh!)
    expect(declined.code).toBe(0)
    expect(declined.output).toMatch(/Store it now; it is not shown again/)
    expect(declined.output).toMatch(new RegExp(`The old endpoint ${old.id} is kept`))
    let ids = (await runAs(emu, 'test', ['webhooks', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n').map((l) => JSON.parse(l).id)
    expect(ids).toContain(old.id)
    expect(ids.length).toBeGreaterThanOrEqual(2)
    const accepted = await runInPty(['webhooks', 'rotate-secret', old.id], [{when: /Delete the old endpoint/, answer: 'y'}], env)
    expect(accepted.code, accepted.output).toBe(0)
    expect(accepted.output).toMatch(/cannot be shown again/)
    ids = (await runAs(emu, 'test', ['webhooks', 'list', '--all', '-o', 'ndjson'])).stdout.trim().split('\n').map((l) => JSON.parse(l).id)
    expect(ids).not.toContain(old.id)
  })

  it('transfers create --wait shows a spinner on the terminal and ends with the settled transfer', async () => {
    const accounts = (await run(['treasury', 'accounts', 'list', '--order', 'asc'], {configDir: dir.path})).json() as Array<{id: string; currency_code: string}>
    const [usd1, usd2] = accounts.filter((a) => a.currency_code === 'USD')
    await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: true, delay_ms: 300})
    const r = await runInPty(
      ['transfers', 'create', '--from', usd1.id, '--to', usd2.id, '--amount', '5.00', '--currency', 'USD', '--rail', 'wire', '--wait', '--poll-interval', '100', '-o', 'json'],
      [],
      {PAYOPS_CONFIG_DIR: dir.path},
    )
    expect(r.code, r.output).toBe(0)
    expect(r.output).toMatch(/Waiting for transfer [0-9a-f-]{36}/)
    expect(r.output).toMatch(/"status": "settled"/)
    await emu.control('POST', '/_emulator/async-transfers', {entity: 'test', enabled: false})
  })
})
