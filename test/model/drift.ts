/**
 * A capability probe for the emulator's drift mode (`emulator start --drift` and its control-API
 * switch): tries the switches the control API may offer and keeps the one whose effect shows (a
 * subaccount answered with the legacy total names only). Resolves with a function that turns drift
 * on after a reset, or undefined when this emulator has no drift mode.
 */
import {startEmulator, type Emulator} from '../support/index.js'

const SWITCHES: Array<[string, string, unknown]> = [
  ['POST', '/_emulator/drift', {enabled: true}],
  ['POST', '/_emulator/faults', {drift: true}],
  ['POST', '/_emulator/config', {drift: true}],
]

async function drifted(emu: Emulator): Promise<boolean> {
  const id = emu.store?.entityByRole('test')?.subaccounts.items[0]?.id
  if (!id) return false
  const r = await fetch(`${emu.baseUrl}/api/subaccounts/${id}`, {headers: {'x-api-key': emu.keys.test}})
  const body = (await r.json()) as {data?: Record<string, unknown>}
  return Boolean(body.data && 'total_incoming_cents' in body.data && !('total_incoming_in_minor_units' in body.data))
}

export async function driftSwitch(): Promise<((emu: Emulator) => Promise<void>) | undefined> {
  const emu = await startEmulator()
  try {
    for (const [method, path, body] of SWITCHES) {
      try {
        await emu.control(method, path, body)
      } catch {
        continue
      }
      if (await drifted(emu)) {
        return async (e: Emulator) => {
          await e.control(method, path, body)
          if (!(await drifted(e))) throw new Error(`${method} ${path} no longer turns drift on`)
        }
      }
    }
    return undefined
  } finally {
    await emu.reset()
  }
}
