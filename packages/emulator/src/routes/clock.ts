/**
 * The emulator's clock and scenarios, on the control API (no key, loopback only):
 *
 * - GET  /_emulator/clock     `{data: {now, day, offset_ms}}`: the emulator's time, its day in the
 *                             schedule timezone, and how far it runs from the wall clock
 * - POST /_emulator/clock     `{advance: "2d"}` or `{to: "2026-01-07T09:00:00-05:00"}`: moves the
 *                             clock forward, running what became due in time order
 *                             (scheduler.ts); `{data: {from, now, day, happened: [...]}}`. A bad
 *                             duration or instant, or a `to` before the clock, is a 400 whose
 *                             message is one line for the operator: the clock never goes backwards.
 * - POST /_emulator/scenario  `{file, text, env?}` (a scenario file's name and text, YAML or JSON,
 *                             and the environment variables its `secret_env` fields name) or
 *                             `{scenario}` (an object, scenario/schema.ts): replaces the test
 *                             entity's world with the scenario's (the other entities are seeded
 *                             afresh, every API key keeps working), checked whole before anything
 *                             changes; 201 `{data: summary}`. A refused file is a 400 whose
 *                             `message` counts the problems and whose `errors` hold one
 *                             `FILE:LINE:COL: field: message` line each.
 */
import * as z from 'zod/mini'
import {CONTROL_PATHS} from '../interface/paths.js'
import {iso} from '../store/index.js'
import {SCHEDULE_TIMEZONE, parseDuration, parseInstant, scheduleDay} from '../clock/clock.js'
import type {AppContext} from '../app.js'
import {validationError} from '../lib/http-error.js'
import {created, ok, parseInput} from '../server/handler.js'
import type {Router} from '../server/router.js'
import {applyScenario} from '../scenario/apply.js'
import {readScenarioText, refusalOf} from '../scenario/file.js'
import {checkScenario, pathText, type Scenario} from '../scenario/schema.js'
import {moveClock} from '../lifecycle/scheduler.js'

const MoveBody = z.object({
  advance: z.optional(z.string({message: 'advance must be a duration such as 2d, 36h or 1d12h'})),
  to: z.optional(z.string({message: 'to must be an ISO 8601 instant with its offset'})),
})

export function clockView(app: AppContext) {
  const now = app.store.nowMs()
  return {now: iso(now), day: scheduleDay(now), offset_ms: app.store.counters().offset}
}

/** The instant a clock move asks for, checked: a 400 for a bad or backward one. */
function targetOf(app: AppContext, body: z.output<typeof MoveBody>): number {
  if ((body.advance === undefined) === (body.to === undefined)) throw validationError('give either advance (a duration such as 2d) or to (an instant)')
  const now = app.store.nowMs()
  if (body.advance !== undefined) {
    const ms = parseDuration(body.advance)
    if (ms === undefined) throw validationError(`"${body.advance}" is not a duration: use a number and a unit, such as 30m, 36h, 2d, 1d12h or 1w (at most 10 years).`)
    return now + ms
  }
  const ms = parseInstant(body.to!)
  if (ms === undefined) throw validationError(`"${body.to}" is not an instant: use ISO 8601 with its offset, such as 2026-01-07T09:00:00-05:00, or a day (2026-01-07, its start in ${SCHEDULE_TIMEZONE}).`)
  if (ms < now) throw validationError(`${body.to} is before the emulator's clock (${iso(now)}); the clock only moves forward. Start an emulator with --clock to begin earlier.`)
  return ms
}

const ScenarioFileBody = z.object({
  file: z.string({message: 'file must be the scenario file\'s name'}),
  text: z.string({message: 'text must be the scenario file\'s text'}),
  env: z.optional(z.record(z.string(), z.string({message: 'env must map variable names to their values'}))),
})

/** The scenario a load names: a file's text (read with line-precise problems) or an object; a 400 when it is not one. */
function scenarioOf(body: Record<string, unknown>): Scenario {
  if (body.text !== undefined) {
    const {file, text, env} = parseInput(ScenarioFileBody, body)
    const read = readScenarioText(text, file, env ?? {})
    if (!read.ok) throw validationError(refusalOf(file, read.problems.length), read.problems)
    return read.scenario
  }
  const checked = checkScenario(body.scenario)
  if (!checked.ok) throw validationError(checked.issues.map((i) => `${pathText(i.path) || 'scenario'}: ${i.message}`).join('; '))
  return checked.scenario
}

export function register(router: Router, app: AppContext): void {
  router.add('GET', CONTROL_PATHS.clock, () => ok({data: clockView(app)}))

  router.add('POST', CONTROL_PATHS.clock, (ctx) => {
    const target = targetOf(app, parseInput(MoveBody, ctx.body))
    const from = iso(app.store.nowMs())
    const happened = moveClock(app, target)
    return ok({data: {from, ...clockView(app), happened}})
  })

  router.add('POST', CONTROL_PATHS.scenario, (ctx) => {
    const summary = applyScenario(app.store, scenarioOf((ctx.body ?? {}) as Record<string, unknown>))
    return created({data: {...summary, clock: clockView(app)}})
  })
}
