import {describe, expect, it} from 'vitest'
import {addDays, parseDuration, parseInstant, scheduleDay, startOfDay} from '../src/clock/clock.js'
import {readScenarioText} from '../src/scenario/file.js'
import {Store} from '../src/store/index.js'

describe('the emulator calendar', () => {
  it('days begin at midnight in New York, on both sides of a daylight-saving change', () => {
    expect(new Date(startOfDay('2026-01-05')).toISOString()).toBe('2026-01-05T05:00:00.000Z')
    expect(new Date(startOfDay('2026-07-01')).toISOString()).toBe('2026-07-01T04:00:00.000Z')
    // 8 March 2026: clocks go forward at 02:00; the day still begins at 00:00 EST.
    expect(new Date(startOfDay('2026-03-08')).toISOString()).toBe('2026-03-08T05:00:00.000Z')
    expect(new Date(startOfDay('2026-03-09')).toISOString()).toBe('2026-03-09T04:00:00.000Z')
    expect(new Date(startOfDay('2026-11-01')).toISOString()).toBe('2026-11-01T04:00:00.000Z')
    expect(scheduleDay(Date.parse('2026-01-06T04:59:59Z'))).toBe('2026-01-05')
    expect(scheduleDay(Date.parse('2026-01-06T05:00:00Z'))).toBe('2026-01-06')
    expect(addDays('2026-01-30', 2)).toBe('2026-02-01')
  })

  it('reads instants with their offset or days, and durations; refuses the rest', () => {
    expect(parseInstant('2026-01-05T09:00:00-05:00')).toBe(Date.parse('2026-01-05T14:00:00Z'))
    expect(parseInstant('2026-01-05')).toBe(Date.parse('2026-01-05T05:00:00Z'))
    for (const bad of ['2026-01-05T09:00:00', '2026-02-30', 'tomorrow', '']) expect(parseInstant(bad)).toBeUndefined()
    expect(parseDuration('1d12h')).toBe(36 * 3_600_000)
    expect(parseDuration('1w')).toBe(7 * 86_400_000)
    for (const bad of ['0d', '2', '2 days', '-1d', '1y', '99999w']) expect(parseDuration(bad)).toBeUndefined()
  })

  it('the store clock moves only forward (unless its records were dropped) and holds still while a move runs', () => {
    const s = new Store()
    const t = Date.parse('2030-01-01T00:00:00Z')
    s.setClock(t)
    expect(s.nowMs()).toBeGreaterThanOrEqual(t)
    expect(() => s.setClock(t - 1000)).toThrow(/before the emulator's clock/)
    s.withClockHeld(() => {
      s.setClock(t + 5000)
      expect(s.nowMs()).toBe(t + 5000)
      expect(s.nowMs()).toBe(t + 5000)
    })
    s.setClock(Date.parse('2020-01-01T00:00:00Z'), true)
    expect(s.now().slice(0, 4)).toBe('2020')
    expect(s.meta().clock_offset).toBeLessThan(0)
  })

  it('a JSON scenario file is read like YAML, with the same line-precise problems', () => {
    const text = '{\n  "accounts": [\n    {"name": "a", "simulated": "yes"}\n  ]\n}\n'
    expect(readScenarioText(text, 's.json')).toEqual({ok: false, problems: ['s.json:3:19: accounts[0].simulated: simulated must be true or false']})
    expect(readScenarioText('{"accounts": [{"name": "a"}]}', 's.json').ok).toBe(true)
    expect(readScenarioText('[]', 's.json')).toEqual({ok: false, problems: ['s.json:1:1: a scenario is a mapping with at least accounts']})
  })
})
