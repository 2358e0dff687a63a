/**
 * Money truth, proven by a model-based test: fast-check draws random sequences of operator actions
 * (moves create with and without a key, a key reused with the same and with other details, approve,
 * cancel, imports of a file that gains duplicate, appended and edited rows, Ctrl-C at a random row,
 * transfers create/approve/--wait, simulated credits, `payops api` on the move path), each under a
 * random fault (5xx or a reset before or after the server committed, settlement failures -> 207),
 * runs them in-process against one emulator (reset between sequences), and after every step
 * checks each claim against the emulator's own ledger (see ./harness.ts for the four properties).
 *
 * PAYOPS_MODEL_RUNS sets the number of sequences (default below: `npm test` stays under a minute on
 * two cores); PAYOPS_MODEL_SEED replays a seed; a failure prints the seed, the path and the shrunk
 * sequence. Every shrunk counterexample is kept as a plain test in ./regressions.test.ts.
 */
import fc from 'fast-check'
import {describe, it} from 'vitest'
import {startEmulator, type Emulator} from '../support/index.js'
import {commandArbs, newModel, newWorld, stats} from './harness.js'
import {driftSwitch} from './drift.js'

const RUNS = Number(process.env.PAYOPS_MODEL_RUNS ?? 20)
const SEED = Number(process.env.PAYOPS_MODEL_SEED ?? 20_261_126)
const MAX_COMMANDS = Number(process.env.PAYOPS_MODEL_COMMANDS ?? 10)
/** Shrinking re-runs sequences; in `npm test` it stops after this long and reports the smallest found so far. */
const TIME_LIMIT_MS = Number(process.env.PAYOPS_MODEL_TIME_LIMIT_MS ?? (process.env.PAYOPS_MODEL_RUNS ? 60 * 60_000 : 45_000))

async function property(emu: Emulator, drift: false | ((emu: Emulator) => Promise<void>)): Promise<void> {
  const start = {...stats}
  try {
    await check(emu, drift)
  } finally {
    console.log(`model: ${stats.sequences - start.sequences} sequences, ${stats.steps - start.steps} steps checked against the ledger (seed ${SEED}); ms by action: ${JSON.stringify(stats.ms)}`)
  }
}

async function check(emu: Emulator, drift: false | ((emu: Emulator) => Promise<void>)): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.commands(commandArbs, {maxCommands: MAX_COMMANDS, size: 'max'}), async (cmds) => {
      const w = await newWorld(emu, drift)
      try {
        await fc.asyncModelRun(() => ({model: newModel(), real: w}), cmds)
      } finally {
        w.dir.cleanup()
      }
    }),
    {numRuns: RUNS, seed: SEED, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false, verbose: 1},
  )
}

describe('every claim about money equals the ledger (model-based)', () => {
  it(`${RUNS} random sequences of operator actions under faults`, async () => {
    await property(await startEmulator(), false)
  }, 10 * 60_000)
})

// The same sequences against an emulator that answers with every documented drift (the approve
// shape without amounts, legacy names only, upper-case states, only the required fields).
const drift = await driftSwitch()
describe.skipIf(!drift)('every claim about money equals the ledger, against the drifted emulator (model-based)', () => {
  it(`${RUNS} random sequences of operator actions under faults, with --drift`, async () => {
    await property(await startEmulator(), drift!)
  }, 10 * 60_000)
})
