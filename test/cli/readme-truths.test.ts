/**
 * Statements of the README that an operator acts on, checked against what the CLI does (issue 28,
 * item 11): each one was once false. In-process, no emulator needed.
 */
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ASSUMPTIONS} from '../../src/api/assumptions.js'
import {PAYERS_MAX_LIMIT} from '../../src/api/schemas/parties.js'
import {ROOT, run, tempDir} from '../support/index.js'

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => readFileSync(join(ROOT, 'docs', f), 'utf8'))
/** The prose of the README and its docs pages, one space between words (their lines are wrapped). */
const prose = [readme, ...docs].join('\n').replace(/\s+/g, ' ')
const dir = tempDir()
afterAll(() => dir.cleanup())

describe('the README says what the CLI does', () => {
  it('payers list --limit: one maximum, the one the CLI enforces', async () => {
    expect(PAYERS_MAX_LIMIT).toBe(100)
    const over = await run(['payers', 'list', '--limit', '200'], {configDir: dir.path})
    expect(over.code).toBe(2)
    expect(prose).toContain('`payers list` 1..100')
    const assumption = ASSUMPTIONS.find((a) => a.topic === 'Payers list `limit` maximum')!
    // The emulator's reading (500) and the CLI's (100) are both stated, neither as the other's.
    expect(assumption.assumed).toContain(`\`payops payers list\` keeps to the payers description's ${PAYERS_MAX_LIMIT}`)
    expect(assumption.assumed).not.toMatch(/normative for payers and payees alike/)
  })

  it('--amount-gte (a decimal) is not called an alias of --amount-in-minor-units-gte (minor units)', async () => {
    const {default: TransfersList} = await import('../../src/commands/transfers/list.js')
    const flags = TransfersList.flags as Record<string, {aliases?: string[]}>
    expect(flags['amount-minor-gte'].aliases).toContain('amount-in-minor-units-gte')
    expect(flags['amount-gte'].aliases ?? []).not.toContain('amount-in-minor-units-gte')
    expect(prose).not.toMatch(/--amount-gte\/--amount-lte` \(alias the full mirror names/)
    expect(prose).toMatch(/`--amount-minor-gte\/--amount-minor-lte` \(minor units; alias the full mirror names `--amount-in-minor-units-gte\/-lte`\)/)
  })

  it('the quick start does not rely on --write-profile making the profile active', () => {
    const block = /Against the local emulator, then against a real environment:\s*```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
    const lines = block.split('\n').filter((l) => /^payops /.test(l))
    expect(lines[0]).toMatch(/^payops emulator start --write-profile (\S+)/)
    const name = /--write-profile (\S+)/.exec(lines[0])![1]
    // A later command names the profile: another one may be active (the emulator leaves it so).
    expect(lines[1]).toMatch(new RegExp(`^payops -p ${name} `))
  })

  it('webhooks verify: a signature that is not hex is a bad signature (exit 1), as README and help say', async () => {
    const payload = join(dir.path, 'body.json')
    writeFileSync(payload, '{}')
    const r = await run(['webhooks', 'verify', '--timestamp', '1767225600', '--signature', 'ZZZ', '--payload-file', payload], {configDir: dir.path, env: {PAYOPS_WEBHOOK_SECRET: 'whsec_readme_truths'}})
    expect(r.code).toBe(1)
    expect(prose).toMatch(/exit 0 valid, 1 bad or stale signature \(a signature that is not 64 hex characters is a bad one too\), 2 malformed input/)
    expect(prose).not.toMatch(/a malformed timestamp or signature input exits 2/)
    const malformed = await run(['webhooks', 'verify', '--timestamp', 'soon', '--signature', 'ab', '--payload-file', payload], {configDir: dir.path, env: {PAYOPS_WEBHOOK_SECRET: 'whsec_readme_truths'}})
    expect(malformed.code).toBe(2)
  })
})
