/**
 * The emulator's control API, as `emulator load` and `emulator clock` call it (CONTROL_PATHS):
 * not part of the service, answered only by a payops emulator on a loopback address. Nothing here
 * is recorded in the audit trail: no money of the service moves.
 */
import * as z from 'zod/mini'
import type {ApiClient} from './client.js'
import {CONTROL_PATHS} from './paths.js'

export const ClockState = z.looseObject({now: z.string(), day: z.string(), offset_ms: z.number()})
export type ClockState = z.infer<typeof ClockState>

export const Happening = z.looseObject({at: z.string(), entity: z.string(), kind: z.string(), id: z.string(), status: z.string()})
export type Happening = z.infer<typeof Happening>

export const ClockMove = z.looseObject({from: z.string(), now: z.string(), day: z.string(), offset_ms: z.number(), happened: z.array(Happening)})
export type ClockMove = z.infer<typeof ClockMove>

export const ScenarioLoaded = z.looseObject({name: z.nullable(z.string()), clock: ClockState})
export type ScenarioLoaded = z.infer<typeof ScenarioLoaded>

export class EmulatorApi {
  constructor(private readonly client: ApiClient) {}

  clock() {
    return this.client.request({method: 'GET', path: CONTROL_PATHS.clock, schema: ClockState})
  }

  /** Moves the clock forward by a duration (`2d`) or to an instant; what became due runs on the way. */
  moveClock(body: {advance: string} | {to: string}) {
    return this.client.request({method: 'POST', path: CONTROL_PATHS.clock, body, schema: ClockMove, skipAudit: true})
  }

  /**
   * Replaces the test entity's world with a scenario file's: its name and text (YAML or JSON), and
   * the values of the environment variables its `secret_env` fields name. The emulator reads and
   * checks it whole; a 400 lists each problem (`errors`) and loads nothing.
   */
  loadScenario(body: {file: string; text: string; env: Record<string, string>}) {
    return this.client.request({method: 'POST', path: CONTROL_PATHS.scenario, body, schema: ScenarioLoaded, skipAudit: true})
  }
}
