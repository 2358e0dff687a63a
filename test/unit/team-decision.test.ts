/**
 * The team's decision of a money request, without a command: the policies it applies (a profile's
 * own limits play no part), what counts towards the day's total (a create held for approval
 * counts nothing), and the create an approval on another machine is judged by (intentFor).
 */
import {describe, expect, it} from 'vitest'
import {SqliteControlStore} from '../../src/control/sqlite.js'
import {teamViolations, withTeamKnown} from '../../src/movements/team.js'
import type {Limits} from '../../src/config/index.js'
import type {History} from '../../src/movements/types.js'
import {fakeClock} from '../support/cli.js'
import {tempDir} from '../support/env.js'

const view = (limits: Limits, total = 0) => ({limits: async () => limits, totalToday: async () => total})
const move = (amount: number, to = 'sub_b', autoApprove: boolean | undefined = true) => ({checks: [{amount_in_minor_units: amount, currency: 'USD', to}], autoApprove})
const noHistory = {byResource: () => undefined} as unknown as History

describe('teamViolations', () => {
  it('applies max-amount, allowed-destinations and daily-max, naming the store; the approval policy is not its part', async () => {
    const limits: Limits = {max_amount: {USD: 5000}, allowed_destinations: ['sub_a'], daily_max: {USD: 10_000}, approval: {policy: 'maker-checker'}}
    const out = await teamViolations([move(6000)], view(limits, 5000), 'db:5432/payops')
    expect(out).toEqual([
      '60.00 USD is over the max-amount 50.00 USD of the team store db:5432/payops',
      'destination sub_b is not in the allowed-destinations of the team store db:5432/payops',
      "daily-max 100.00 USD of the team store db:5432/payops: 50.00 USD allowed today (the store's day, UTC) + 60.00 USD asked = 110.00 USD",
    ])
    expect(await teamViolations([move(100, 'sub_a')], view({approval: {policy: 'maker-checker'}}), 'x')).toEqual([])
  })

  it('a create held for approval counts nothing towards the day; an unknown amount is refused once the team has policies', async () => {
    expect(await teamViolations([move(9000, 'sub_b', false)], view({daily_max: {USD: 10_000}}, 5000), 'x')).toEqual([])
    expect(await teamViolations([{checks: [], unknown: 'the amount of move m1 is unknown'}], view({daily_max: {USD: 1}}), 'x')).toEqual(['the amount of move m1 is unknown, so the policies of the team store x cannot be checked'])
    expect(await teamViolations([{checks: [], unknown: 'unknown'}], view({}), 'x')).toEqual([])
  })
})

describe('withTeamKnown', () => {
  it('fills an approval with what the store recorded of the create whose outcome named it', async () => {
    const dir = tempDir()
    const clock = fakeClock()
    const store = SqliteControlStore.open({configDir: dir.path, entity: 'e1', actor: 'ana', now: () => clock.now()})
    try {
      const {intent} = await store.decide(() => ({value: null, intent: {kind: 'move.create', currency: 'USD', amount: 0, destination: 'sub_b', status: 'allowed', detail: {amount_in_minor_units: 4000, from: 'sub_a', to: 'sub_b', idempotency_key: 'k1'}}}))
      await store.recordOutcome(intent!.seq, 'created', {id: 'mv_1'})
      const team = {store, location: dir.path}
      const filled = await withTeamKnown({kind: 'move.approve', id: 'mv_1'}, {team, history: noHistory})
      expect(filled).toEqual({kind: 'move.approve', id: 'mv_1', known: {id: 'mv_1', amount_in_minor_units: 4000, currency_code: 'USD', from: 'sub_a', to: 'sub_b', idempotency_key: 'k1'}})
      expect(await withTeamKnown({kind: 'move.approve', id: 'mv_2'}, {team, history: noHistory})).toEqual({kind: 'move.approve', id: 'mv_2'})
      // Without a team store, nothing is looked up.
      expect(await withTeamKnown({kind: 'move.approve', id: 'mv_1'}, {history: noHistory})).toEqual({kind: 'move.approve', id: 'mv_1'})
    } finally {
      await store.close()
      dir.cleanup()
    }
  })
})
