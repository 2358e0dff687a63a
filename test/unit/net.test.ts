/**
 * The way out (src/net.ts): which proxy a URL goes through and why, NO_PROXY's forms, the loopback
 * rule, proxy URLs checked and shown without their credentials.
 */
import {describe, expect, it} from 'vitest'
import {bypassesProxy, proxySecrets, redactProxyUrl, routeFor, validateProxyUrl} from '../../src/net.js'
import {UsageError} from '../../src/errors.js'

const via = (url: string, env: NodeJS.ProcessEnv, proxy?: string) => routeFor(url, {env, proxy, proxySource: proxy ? '--proxy' : undefined}).proxy?.href

describe('routeFor', () => {
  it('https URLs take https_proxy/HTTPS_PROXY, else http_proxy/HTTP_PROXY; http URLs only the latter; lower case first', () => {
    expect(via('https://api.example.com', {HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://h:2'})).toBe('http://s:1/')
    expect(via('https://api.example.com', {HTTP_PROXY: 'http://h:2'})).toBe('http://h:2/')
    expect(via('http://api.example.com', {HTTPS_PROXY: 'http://s:1'})).toBeUndefined()
    expect(via('https://api.example.com', {https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2'})).toBe('http://lower:1/')
    expect(via('https://api.example.com', {HTTPS_PROXY: '  '})).toBeUndefined()
    expect(via('https://api.example.com', {HTTPS_PROXY: 'proxy.corp:3128'})).toBe('http://proxy.corp:3128/')
  })

  it('--proxy (or the profile) wins over the environment; none turns every proxy off', () => {
    expect(via('https://api.example.com', {HTTPS_PROXY: 'http://env:1'}, 'http://flag:2')).toBe('http://flag:2/')
    expect(via('http://api.example.com', {}, 'http://flag:2')).toBe('http://flag:2/')
    expect(routeFor('https://api.example.com', {env: {HTTPS_PROXY: 'http://env:1'}, proxy: 'none', proxySource: '--proxy'})).toEqual({why: 'direct (--proxy is none)'})
  })

  it('NO_PROXY sends a host, its subdomains or a host:port direct, whatever the proxy came from', () => {
    const env = {HTTPS_PROXY: 'http://p:1', NO_PROXY: 'internal.example, .corp.test,*.lan api.other:8443'}
    expect(via('https://internal.example', env)).toBeUndefined()
    expect(via('https://a.internal.example', env)).toBeUndefined()
    expect(via('https://notinternal.example', env)).toBe('http://p:1/')
    expect(via('https://x.corp.test', env)).toBeUndefined()
    expect(via('https://host.lan', env)).toBeUndefined()
    expect(via('https://api.other:8443', env)).toBeUndefined()
    expect(via('https://api.other', env)).toBe('http://p:1/')
    expect(via('https://api.example.com', {NO_PROXY: '*'}, 'http://flag:2')).toBeUndefined()
    expect(via('https://[::1]:9', {NO_PROXY: '::1'}, 'http://127.0.0.1:2')).toBeUndefined()
    expect(via('https://[::1]:9', {NO_PROXY: '[::1]:9'}, 'http://127.0.0.1:2')).toBeUndefined()
    expect(routeFor('https://x.corp.test', {env}).why).toBe('direct (x.corp.test is in NO_PROXY)')
  })

  it('loopback targets go through a proxy only when the proxy is on loopback too', () => {
    for (const target of ['http://127.0.0.1:4010', 'http://localhost:4010', 'http://127.3.2.1', 'http://[::1]:4010']) {
      expect(via(target, {HTTP_PROXY: 'http://proxy.corp:3128'}), target).toBeUndefined()
      expect(via(target, {}, 'http://proxy.corp:3128'), target).toBeUndefined()
      expect(via(target, {HTTP_PROXY: 'http://127.0.0.1:8080'}), target).toBe('http://127.0.0.1:8080/')
      expect(via(target, {}, 'http://localhost:8080'), target).toBe('http://localhost:8080/')
    }
    expect(routeFor('http://127.0.0.1:4010', {env: {HTTP_PROXY: 'http://u:secret-pw@proxy.corp:3128'}}).why).toBe(
      'direct (127.0.0.1 is loopback: the proxy http://…@proxy.corp:3128 from HTTP_PROXY could not reach it)',
    )
  })

  it('a bad proxy in the environment is a usage error naming the variable, not its credentials', () => {
    expect(() => via('https://api.example.com', {HTTPS_PROXY: 'socks5://u:pw-secret@p:1'})).toThrow(UsageError)
    expect(() => via('https://api.example.com', {HTTPS_PROXY: 'socks5://u:pw-secret@p:1'})).toThrow(/^HTTPS_PROXY "socks5:\/\/…@p:1" uses socks5/)
  })
})

describe('bypassesProxy', () => {
  it('is false without NO_PROXY and honours default ports', () => {
    expect(bypassesProxy(new URL('https://a.example'), undefined)).toBe(false)
    expect(bypassesProxy(new URL('https://a.example'), 'a.example:443')).toBe(true)
    expect(bypassesProxy(new URL('http://a.example'), 'a.example:443')).toBe(false)
  })
})

describe('proxy URLs', () => {
  it('are shown without credentials', () => {
    expect(redactProxyUrl('http://alice:pw@proxy:3128')).toBe('http://…@proxy:3128')
    expect(redactProxyUrl('http://token@proxy:3128/')).toBe('http://…@proxy:3128')
    expect(redactProxyUrl('https://proxy:3128')).toBe('https://proxy:3128')
    expect(redactProxyUrl('alice:pw@proxy:3128')).toBe('http://…@proxy:3128')
    expect(redactProxyUrl('http://user:pw@bad host')).toBe('…@bad host')
    expect(redactProxyUrl(undefined)).toBeUndefined()
  })

  it('are checked: http or https, a host, no path', () => {
    expect(validateProxyUrl('proxy:3128', 'Proxy')).toBe('http://proxy:3128')
    expect(validateProxyUrl(' none ', 'Proxy')).toBe('none')
    expect(() => validateProxyUrl('ftp://proxy', 'Proxy')).toThrow(/http:\/\/ and https:\/\/ proxies only/)
    expect(() => validateProxyUrl('http://proxy:3128/x', 'Proxy')).toThrow(/has a path/)
    expect(() => validateProxyUrl('http://', 'Proxy')).toThrow(UsageError)
  })

  it('register their credentials as secrets (password, user:password, the Basic value); none without credentials', () => {
    const got: string[] = []
    proxySecrets('http://alice:p%40ss@proxy:3128', (s) => got.push(s))
    expect(got).toEqual(expect.arrayContaining(['http://alice:p%40ss@proxy:3128', 'p%40ss', 'p@ss', 'alice:p@ss', Buffer.from('alice:p@ss').toString('base64')]))
    const none: string[] = []
    proxySecrets('http://proxy:3128', (s) => none.push(s))
    proxySecrets('none', (s) => none.push(s))
    expect(none).toEqual([])
  })
})
