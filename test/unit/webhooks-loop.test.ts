/** The pure parts of the webhook loop: route patterns and the event store's bounds. */
import {symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {EventStore, storableHeaders, type ReceivedEvent} from '../../src/webhooks/event-store.js'
import {parseSince} from '../../src/webhooks/events-command.js'
import {matchesPattern, parseRoutes, routeWarnings, routesFor} from '../../src/webhooks/routes.js'
import {tempDir} from '../support/env.js'

describe('route patterns', () => {
  it('matches a type, a part with *, and * alone; never across parts', () => {
    expect(matchesPattern('payin.settled', 'payin.settled')).toBe(true)
    expect(matchesPattern('payin.*', 'payin.failed')).toBe(true)
    expect(matchesPattern('*.failed', 'payout.failed')).toBe(true)
    expect(matchesPattern('*', 'subaccount.credit_received')).toBe(true)
    expect(matchesPattern('payin.*', 'payout.failed')).toBe(false)
    expect(matchesPattern('payin', 'payin.settled')).toBe(false)
    expect(matchesPattern('payin.*', 'payin.settled.extra')).toBe(false)
    expect(matchesPattern('payin.settled', 'payin.settled2')).toBe(false)
  })

  it('routes to every matching route once per URL, else to --forward-to', () => {
    const routes = [...parseRoutes(['payin.*=http://a/', '*.failed=http://b/', 'payin.failed=http://a/']), {pattern: null, url: 'http://c/'}]
    expect(routesFor('payin.failed', routes)).toEqual([0, 1])
    expect(routesFor('payout.failed', routes)).toEqual([1])
    expect(routesFor('subaccount.credit_received', routes)).toEqual([3])
    expect(routesFor('subaccount.credit_received', routes.slice(0, 3))).toEqual([])
  })

  it('warns for patterns that match no known type; refuses malformed ones', () => {
    expect(routeWarnings(parseRoutes(['payin.*=http://a/', 'refund.*=http://a/', '*=http://b/']))).toEqual([expect.stringMatching(/^--forward refund\.\*=http:\/\/a\/: the pattern matches no known event type/)])
    for (const bad of ['payin.*', '=http://a/', 'payin.*=', 'PAYIN.*=http://a/', 'payin..x=http://a/', 'payin.*=mailto:x', 'pay in=http://a/']) expect(() => parseRoutes([bad]), bad).toThrow(/--forward/)
  })
})

describe('--since', () => {
  it('takes an age, a date or a date-time', () => {
    const now = Date.parse('2026-03-10T12:00:00Z')
    expect(parseSince('2h', now)).toBe(now - 7_200_000)
    expect(parseSince('7d', now)).toBe(now - 7 * 86_400_000)
    expect(parseSince('2026-03-01', now)).toBe(Date.parse('2026-03-01T00:00:00Z'))
    expect(() => parseSince('soon', now)).toThrow(/--since/)
  })
})

const event = (n: number, receivedAt: string, body = `{"id":"evt_${n}","type":"payin.settled","data":{}}`): ReceivedEvent => ({
  id: `evt_${n}`,
  type: 'payin.settled',
  body: Buffer.from(body),
  rawHeaders: ['X-Webhook-Signature', 'ab', 'Authorization', 'Bearer x', 'Cookie', 'c=1', 'x-api-key', 'k', 'X-Other', 'y'],
  signatureTimestamp: '1767225600',
  secretIndex: 0,
  receivedAt,
})

describe('the event store', () => {
  it('keeps bodies byte for byte and headers without credentials; one record per event id', () => {
    const dir = tempDir()
    const store = EventStore.open(dir.path)
    const raw = Buffer.from([0x7b, 0x20, 0xc3, 0xa9, 0x00, 0xff, 0x7d])
    expect(store.record({...event(1, new Date().toISOString()), body: raw})).toBe(true)
    expect(store.record({...event(1, new Date().toISOString()), body: Buffer.from('{}')})).toBe(false)
    const kept = store.require('evt_1')
    expect(kept.body).toEqual(raw)
    expect(kept.headers).toEqual([
      ['X-Webhook-Signature', 'ab'],
      ['X-Other', 'y'],
    ])
    expect(storableHeaders(['Proxy-Authorization', 'p', 'A', 'b'])).toEqual([['A', 'b']])
    expect(() => store.require('evt_2')).toThrow(expect.objectContaining({exitCode: 4}))
    store.addDelivery('evt_1', {kind: 'forward', route: 'payin.*', url: 'http://a/', status: 200, ok: true, error: null, duration_ms: 3, at: new Date().toISOString()})
    store.addDelivery('evt_gone', {kind: 'forward', route: null, url: 'http://a/', status: 200, ok: true, error: null, duration_ms: 3, at: new Date().toISOString()})
    expect(store.require('evt_1').deliveries).toMatchObject([{kind: 'forward', route: 'payin.*', status: 200, ok: true}])
    store.close()
    dir.cleanup()
  })

  it('holds at most --keep-events events, drops those older than --keep-days, and keeps under its byte bound', async () => {
    const dir = tempDir()
    let now = Date.parse('2026-03-10T12:00:00Z')
    const store = EventStore.open(dir.path, {maxEvents: 5, maxAgeDays: 2, maxBytes: 1000}, () => now)
    for (let n = 1; n <= 8; n++) store.record(event(n, new Date(now).toISOString()))
    expect(store.list().map((e) => e.id)).toEqual(['evt_8', 'evt_7', 'evt_6', 'evt_5', 'evt_4'])
    // Deliveries go with their event.
    const deliveries = () => Number(store.db.prepare('SELECT COUNT(*) AS n FROM delivery').get<{n: number}>()!.n)
    store.addDelivery('evt_4', {kind: 'resend', route: null, url: 'http://a/', status: 500, ok: false, error: 'answered 500', duration_ms: 1, at: new Date(now).toISOString()})
    expect(deliveries()).toBe(1)

    // Three days on: an event received now prunes those over two days old.
    now += 3 * 86_400_000
    store.record(event(9, new Date(now).toISOString()))
    expect(store.list().map((e) => e.id)).toEqual(['evt_9'])
    expect(deliveries()).toBe(0)

    // The byte bound: 100-byte bodies, 1,000 bytes at most.
    const big = (n: number) => {
      const [head, tail] = [`{"id":"evt_${100 + n}","type":"payin.settled","data":{"p":"`, '"}}']
      return event(100 + n, new Date(now).toISOString(), head + 'x'.repeat(100 - head.length - tail.length) + tail)
    }
    // A store commits what it wrote on the next turn of the event loop; another one writes after it.
    await new Promise((resolve) => setImmediate(resolve))
    const wide = EventStore.open(dir.path, {maxEvents: 1000, maxAgeDays: 30, maxBytes: 1000}, () => now)
    for (let n = 0; n < 64; n++) wide.record(big(n))
    const sizes = wide.list().map((e) => e.size)
    expect(sizes.every((s) => s === 100)).toBe(true)
    expect(sizes).toHaveLength(10)
    expect(wide.list()[0].id).toBe('evt_163')
    wide.close()

    // Filters: a pattern and a time.
    expect(store.list({type: 'payout.*'})).toEqual([])
    expect(store.list({type: 'payin.*', sinceMs: now + 1})).toEqual([])
    store.close()
    dir.cleanup()
  })

  it('is never opened through a symlink, nor over another purpose\'s database', () => {
    const dir = tempDir()
    const target = join(dir.path, 'elsewhere.sqlite')
    writeFileSync(target, '')
    symlinkSync(target, join(dir.path, 'webhook-events.sqlite'))
    expect(() => EventStore.open(dir.path)).toThrow(/symbolic link/)
    dir.cleanup()
  })
})
