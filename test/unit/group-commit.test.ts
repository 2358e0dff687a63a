/**
 * Group commit (src/control/group.ts): a request that finds the store idle goes at once, alone;
 * those that arrive meanwhile wait and go together; each gets its own result, and a flush that
 * fails fails its own group only.
 */
import {describe, expect, it} from 'vitest'
import {grouped, type Settled} from '../../src/control/group.js'

function recorder() {
  const flushes: number[][] = []
  let release: (() => void) | undefined
  const gate = () => new Promise<void>((r) => (release = r))
  let hold = false
  const send = grouped(async (items: number[]): Promise<Array<Settled<number>>> => {
    flushes.push(items)
    if (hold) await gate()
    return items.map((n) => (n < 0 ? {ok: false, error: new Error(`refused ${n}`)} : {ok: true, value: n * 10}))
  })
  return {flushes, send, holdNext: () => (hold = true), release: () => ((hold = false), release?.())}
}

describe('grouped', () => {
  it('a request on an idle store goes at once, alone', async () => {
    const r = recorder()
    expect(await r.send(1)).toBe(10)
    expect(await r.send(2)).toBe(20)
    expect(r.flushes).toEqual([[1], [2]])
  })

  it('requests made while a flush is in flight wait, then go together in arrival order', async () => {
    const r = recorder()
    r.holdNext()
    const first = r.send(1)
    const rest = [r.send(2), r.send(3), r.send(4)]
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(r.flushes).toEqual([[1]])
    r.release()
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40])
    expect(r.flushes).toEqual([[1], [2, 3, 4]])
  })

  it('an item refused in a group fails alone; the others of its group succeed', async () => {
    const r = recorder()
    r.holdNext()
    const first = r.send(1)
    const results = [r.send(2), r.send(-3), r.send(4)].map((p) => p.then((v) => ({v}), (e: Error) => ({e: e.message})))
    r.release()
    await first
    expect(await Promise.all(results)).toEqual([{v: 20}, {e: 'refused -3'}, {v: 40}])
  })

  it('a flush that throws fails every item of its group, and the next group still goes', async () => {
    let calls = 0
    let release: (() => void) | undefined
    const send = grouped(async (items: string[]): Promise<Array<Settled<string>>> => {
      calls++
      if (calls === 1) await new Promise<void>((r) => (release = r))
      if (calls === 2) throw new Error('store gone')
      return items.map((s) => ({ok: true, value: s.toUpperCase()}))
    })
    const a = send('a')
    const b = send('b').catch((e: Error) => e.message)
    const c = send('c').catch((e: Error) => e.message)
    release!()
    expect(await a).toBe('A')
    expect([await b, await c]).toEqual(['store gone', 'store gone'])
    expect(await send('d')).toBe('D')
  })

  it('a group is at most maxGroup items; the rest go in the next', async () => {
    const flushes: number[] = []
    let release: (() => void) | undefined
    const send = grouped(async (items: number[]): Promise<Array<Settled<number>>> => {
      flushes.push(items.length)
      if (flushes.length === 1) await new Promise<void>((r) => (release = r))
      return items.map((n) => ({ok: true, value: n}))
    }, 3)
    const all = [send(0), send(1), send(2), send(3), send(4), send(5), send(6)]
    release!()
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(flushes).toEqual([1, 3, 3])
  })
})
