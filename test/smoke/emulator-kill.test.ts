/**
 * The emulator's --state under kill -9: every write commits to the SQLite state file before it is
 * answered, so a move whose 201 the client received is never lost. A real emulator process
 * (`bin/run.js emulator start --port 0 --json --state FILE`, needs dist/) takes concurrent moves and
 * is killed with SIGKILL right after the 300th answer, while more requests are in flight; a new
 * process on the same state file must hold every answered move. The emulator runs in a child of
 * that process (the emulator's own command line): killed, payops leaves no emulator running.
 */
import {execFileSync} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {startEmulator, tempDir, type Emulator} from './process.js'

const dir = tempDir('payops-emulator-kill-')

interface Answer {
  status: number
  body: any
}

async function api(emu: Emulator, method: string, path: string, body?: unknown, idem?: string): Promise<Answer> {
  const headers: Record<string, string> = {'x-api-key': emu.keys.test, 'content-type': 'application/json'}
  if (idem) headers['idempotency-key'] = idem
  const res = await fetch(emu.baseUrl + path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)})
  const text = await res.text()
  return {status: res.status, body: text ? JSON.parse(text) : undefined}
}

/** The processes whose parent is `pid` (POSIX ps). */
function childrenOf(pid: number): number[] {
  return execFileSync('ps', ['-A', '-o', 'pid=,ppid='], {encoding: 'utf8'})
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([, ppid]) => ppid === pid)
    .map(([child]) => child)
}

/** Whether `pid` still runs (a zombie waiting to be reaped does not). */
function running(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], {encoding: 'utf8'}).trim().startsWith('Z')
  } catch {
    return false // ps exits 1: no such process
  }
}

/** Every credit amount on a subaccount's activity, through the API. */
async function creditAmounts(emu: Emulator, sub: string): Promise<number[]> {
  const out: number[] = []
  let cursor: string | undefined
  for (let guard = 0; guard < 100; guard++) {
    const qs = new URLSearchParams({direction: 'credit', limit: '500', ...(cursor ? {cursor} : {})})
    const page = await api(emu, 'GET', `/api/subaccounts/${sub}/activity?${qs}`)
    expect(page.status).toBe(200)
    out.push(...page.body.data.map((l: {amount_in_cents: number}) => l.amount_in_cents))
    if (!page.body.has_more) return out
    cursor = page.body.next_cursor
  }
  throw new Error('no last page')
}

describe('emulator --state killed with SIGKILL', () => {
  it('keeps every move it answered 201: a restart on the same state file has all of them', async () => {
    const state = join(dir.path, 'state.db')
    const first = await startEmulator(['--state', state])
    const from = (await api(first, 'POST', '/api/subaccounts', {name: 'Kill source'})).body.data.id as string
    const to = (await api(first, 'POST', '/api/subaccounts', {name: 'Kill destination'})).body.data.id as string

    const emulators = childrenOf(first.proc.pid!)
    expect(emulators).toHaveLength(1)
    // 16 requests in flight at a time; SIGKILL as soon as the 300th 201 arrives.
    const TARGET = 300
    const TOTAL = 600
    const answered = new Map<number, string>() // amount -> move id
    const exited = new Promise<NodeJS.Signals | null>((resolve) => first.proc.once('exit', (_code, signal) => resolve(signal)))
    let next = 0
    let killed = false
    const worker = async () => {
      while (!killed && next < TOTAL) {
        const i = next++
        const amount = 1000 + i
        let r: Answer
        try {
          r = await api(first, 'POST', '/api/subaccounts/move', {from_subaccount_id: from, to_subaccount_id: to, amount_in_minor_units: amount}, `kill-${i}`)
        } catch {
          return // the process is gone
        }
        if (killed) return // answered after the kill was sent: not counted
        expect(r.status, JSON.stringify(r.body)).toBe(201)
        answered.set(amount, r.body.data.id)
        if (answered.size >= TARGET && !killed) {
          killed = true
          first.proc.kill('SIGKILL')
        }
      }
    }
    try {
      await Promise.all(Array.from({length: 16}, worker))
    } finally {
      killed = true
      if (first.proc.exitCode === null && first.proc.signalCode === null) first.proc.kill('SIGKILL')
    }
    expect(await exited).toBe('SIGKILL')
    expect(answered.size).toBeGreaterThanOrEqual(TARGET)
    // Its emulator stops on its own (its stdin ended with payops), letting the state file go.
    for (let i = 0; i < 200 && running(emulators[0]); i++) await new Promise((r) => setTimeout(r, 50))
    expect(running(emulators[0])).toBe(false)

    const second = await startEmulator(['--state', state])
    try {
      expect(second.keys).toEqual(first.keys)
      // Every answered amount is on the destination (moves in flight at the kill may be there too).
      const credits = new Set(await creditAmounts(second, to))
      const missing = [...answered.keys()].filter((a) => !credits.has(a))
      expect(missing).toEqual([])
      const dst = (await api(second, 'GET', `/api/subaccounts/${to}`)).body.data
      expect(dst.total_incoming_in_minor_units).toBe([...credits].reduce((s, a) => s + a, 0))
      expect(dst.total_incoming_in_minor_units).toBeGreaterThanOrEqual([...answered.keys()].reduce((s, a) => s + a, 0))
      // Each answered move is still bound to its Idempotency-Key: a replay returns it (200), it does not move money again.
      for (const [amount, id] of answered) {
        const replay = await api(second, 'POST', '/api/subaccounts/move', {from_subaccount_id: from, to_subaccount_id: to, amount_in_minor_units: amount}, `kill-${amount - 1000}`)
        expect(replay.status).toBe(200)
        expect(replay.body.data.id).toBe(id)
      }
    } finally {
      expect(await second.stop()).toBe(0)
    }
  })
})
