/**
 * Where payops' requests go: loopback checks, and the way out of a corporate network — which
 * proxy (if any) a request goes through, and which certificate authorities its TLS trusts.
 *
 * A proxy comes from `--proxy`, else the profile's `proxy` setting, else the environment
 * (`https_proxy`/`HTTPS_PROXY` for https URLs, falling back to `http_proxy`/`HTTP_PROXY`, which
 * also serves http URLs; lower case first, as curl and undici read them). `NO_PROXY` (or
 * `no_proxy`: host names, `.domain` / `*.domain` suffixes, `host:port`, or `*`) sends a request
 * direct whatever the proxy's source. A loopback target (localhost, 127.0.0.0/8, ::1: the emulator,
 * a local handler) goes through a proxy only when that proxy is itself on loopback (a local
 * inspecting proxy): a proxy elsewhere cannot reach this machine's loopback, and would reach its own.
 *
 * TLS trusts Node's bundled roots, plus `NODE_EXTRA_CA_CERTS` and the profile's `ca-file` (PEM),
 * the certificates of a TLS-inspecting proxy. Requests are made with undici's Agent and ProxyAgent
 * (http URLs forwarded to the proxy, https URLs tunnelled with CONNECT); nothing is loaded for a
 * request that needs neither a proxy nor extra CAs.
 */
import {readFileSync} from 'node:fs'
import type {Dispatcher} from 'undici'
import {UsageError} from './errors.js'
import {host, STARTUP_EXTRA_CA_CERTS, type Host} from './context/host.js'

/** Loopback addresses: where a key may travel over plain http, and webhook URLs may be http. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]'])

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname)
}

/** What decides the way out of one command run. */
export interface NetworkSettings {
  /** `--proxy` or the profile's proxy: used for http and https alike; `none` turns every proxy off. */
  proxy?: string
  /** Where `proxy` came from: `--proxy`, `profile "prod"`. */
  proxySource?: string
  /** The profile's `ca-file`: PEM certificates trusted besides the bundled roots. */
  caFile?: string
  caFileSource?: string
  /** The run's environment: *_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS. */
  env: NodeJS.ProcessEnv
}

const nonEmpty = (v: string | undefined) => (v !== undefined && v.trim() !== '' ? v.trim() : undefined)
const envValue = (env: NodeJS.ProcessEnv, name: string) => nonEmpty(env[name.toLowerCase()]) ?? nonEmpty(env[name.toUpperCase()])

/** `http://user:pass@proxy:3128/` as it may be shown: the credentials never, the rest as it is. */
export function redactProxyUrl(value: string | undefined | null): string | undefined {
  if (!value) return undefined
  if (value === 'none') return value
  try {
    const url = new URL(withScheme(value))
    const auth = url.username || url.password ? '…@' : ''
    return `${url.protocol}//${auth}${url.host}`
  } catch {
    // Not a URL: whatever stands before an @ may be a credential.
    return value.includes('@') ? `…@${value.slice(value.lastIndexOf('@') + 1)}` : value
  }
}

/** `proxy:3128` is taken as `http://proxy:3128`, as curl does. */
function withScheme(value: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`
}

/**
 * A proxy URL checked: http:// or https://, a host, nothing but a port after it. The message of a
 * refusal never repeats the credentials. Returns the URL with its scheme.
 */
export function validateProxyUrl(value: string, what: string): string {
  const v = value.trim()
  if (v === 'none') return v
  let url: URL
  try {
    url = new URL(withScheme(v))
  } catch {
    throw new UsageError(`${what} "${redactProxyUrl(v)}" is not a URL: give http://HOST:PORT (or http://USER:PASSWORD@HOST:PORT, or none).`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${what} "${redactProxyUrl(v)}" uses ${url.protocol.replace(/:$/, '')}://: payops speaks to http:// and https:// proxies only.`)
  }
  if (!url.hostname) throw new UsageError(`${what} "${redactProxyUrl(v)}" names no host.`)
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new UsageError(`${what} "${redactProxyUrl(v)}" has a path: give the proxy as SCHEME://HOST:PORT.`)
  }
  return withScheme(v)
}

/** The secrets of a proxy URL, handed to `register` so that no message, trace or record shows them. */
export function proxySecrets(value: string | undefined, register: (secret: string) => void): void {
  if (!value || value === 'none') return
  try {
    const url = new URL(withScheme(value))
    if (!url.username && !url.password) return
    register(value)
    const user = decodeURIComponent(url.username)
    const pass = decodeURIComponent(url.password)
    for (const s of [url.password, pass, `${url.username}:${url.password}`, `${user}:${pass}`, Buffer.from(`${user}:${pass}`).toString('base64'), url.href]) if (s && s !== ':') register(s)
  } catch {
    // An invalid URL is refused before use, and its message shows none of it before an @.
    if (value.includes('@')) register(value)
  }
}

/** How one request leaves: through `proxy` (a URL with its credentials), or direct, and why. */
export interface Route {
  proxy?: URL
  /** The proxy as shown (no credentials) and where it came from; or why the request goes direct. */
  why: string
}

interface NoProxyEntry {
  host: string
  port: number
}

function noProxyEntries(value: string): NoProxyEntry[] {
  const out: NoProxyEntry[] = []
  for (const raw of value.toLowerCase().split(/[,\s]+/)) {
    if (!raw) continue
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw)
    const named = /^([^:]+):(\d+)$/.exec(raw)
    // `[::1]:8080`, `host:8080`, or a bare name or address (`::1` has colons and no port).
    const [name, port] = bracketed ? [bracketed[1], bracketed[2]] : named ? [named[1], named[2]] : [raw, undefined]
    out.push({host: name.replace(/^\*?\./, ''), port: port ? Number(port) : 0})
  }
  return out
}

const DEFAULT_PORTS: Record<string, number> = {'http:': 80, 'https:': 443}

/** NO_PROXY's verdict for `url`: the host itself, or a subdomain, of an entry (on its port, when it names one). */
export function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false
  if (noProxy.trim() === '*') return true
  const name = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol] || 0
  return noProxyEntries(noProxy).some((e) => (!e.port || e.port === port) && (name === e.host || name.endsWith(`.${e.host}`)))
}

/** How a request to `target` leaves under `net`. */
export function routeFor(target: URL | string, net: NetworkSettings): Route {
  const url = typeof target === 'string' ? new URL(target) : target
  const {env} = net
  let proxy: string | undefined
  let source: string
  if (net.proxy) {
    if (net.proxy === 'none') return {why: `direct (${net.proxySource ?? 'proxy'} is none)`}
    proxy = net.proxy
    source = net.proxySource ?? 'proxy'
  } else {
    const https = url.protocol === 'https:' ? envValue(env, 'https_proxy') : undefined
    const http = envValue(env, 'http_proxy')
    proxy = https ?? http
    source = https ? (nonEmpty(env.https_proxy) ? 'https_proxy' : 'HTTPS_PROXY') : nonEmpty(env.http_proxy) ? 'http_proxy' : 'HTTP_PROXY'
    if (!proxy) return {why: 'direct (no proxy set)'}
    proxy = validateProxyUrl(proxy, source)
  }
  const noProxy = envValue(env, 'no_proxy')
  if (bypassesProxy(url, noProxy)) return {why: `direct (${url.hostname} is in ${nonEmpty(env.no_proxy) ? 'no_proxy' : 'NO_PROXY'})`}
  const proxyUrl = new URL(proxy)
  if (isLoopbackHost(url.hostname) && !isLoopbackHost(proxyUrl.hostname)) {
    return {why: `direct (${url.hostname} is loopback: the proxy ${redactProxyUrl(proxy)} from ${source} could not reach it)`}
  }
  return {proxy: proxyUrl, why: `through the proxy ${redactProxyUrl(proxy)} (from ${source})`}
}

/**
 * The certificate authorities TLS trusts when more than Node's bundled roots are asked for
 * (NODE_EXTRA_CA_CERTS, the profile's ca-file); undefined when the defaults stand. A ca-file that
 * cannot be read or holds no certificate is a usage error (exit 2); an unreadable
 * NODE_EXTRA_CA_CERTS is left out, as Node itself only warns of it.
 */
export async function trustedCas(net: NetworkSettings): Promise<string[] | undefined> {
  const extra = nonEmpty(net.env.NODE_EXTRA_CA_CERTS)
  if (!extra && !net.caFile) return undefined
  const {rootCertificates} = await import('node:tls')
  const cas = [...rootCertificates]
  if (extra) {
    try {
      cas.push(readFileSync(extra, 'utf8'))
    } catch {
      // Node warned of it at start-up already.
    }
  }
  if (net.caFile) cas.push(readCaFile(net.caFile, `The ca-file of ${net.caFileSource ?? 'the profile'}`))
  return cas
}

/** A PEM file of one or more certificates, read whole. */
export function readCaFile(path: string, what: string): string {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new UsageError(`${what} ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`)
  }
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(text)) throw new UsageError(`${what} ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----).`)
  return text
}

type Undici = typeof import('undici')

export interface AgentOptions {
  connections?: number
  pipelining?: number
  keepAliveTimeout?: number
}

/**
 * An undici dispatcher for requests to `target`: undici's ProxyAgent when a proxy applies (http
 * URLs forwarded, https URLs tunnelled with CONNECT), else an Agent; TLS trusting `cas` when given.
 */
export function dispatcherFor(undici: Undici, target: URL | string, net: NetworkSettings, opts: AgentOptions = {}, cas?: string[]): Dispatcher {
  const route = routeFor(target, net)
  const tls = cas ? {ca: cas} : {}
  if (!route.proxy) return new undici.Agent({...opts, connect: tls})
  return new undici.ProxyAgent({...opts, uri: route.proxy.href, proxyTunnel: false, requestTls: tls, proxyTls: tls})
}

/** Whether a request to `target` needs more than Node's own fetch (a proxy, or extra CAs). */
export function needsDispatcher(target: URL | string, net: NetworkSettings): boolean {
  // Node applied the process's own NODE_EXTRA_CA_CERTS to its fetch at start-up: only another
  // file (a run's environment in-process, or a profile's ca-file) needs a dispatcher of its own.
  const extra = nonEmpty(net.env.NODE_EXTRA_CA_CERTS)
  return Boolean(routeFor(target, net).proxy) || Boolean(extra && extra !== STARTUP_EXTRA_CA_CERTS) || Boolean(net.caFile)
}

/** The network settings of each command run (a host), resolved when first asked. */
const perRun = new WeakMap<Host, () => NetworkSettings>()

/** Binds the run's network settings (called once its flags and profile are known). */
export function bindNetwork(run: Host, settings: () => NetworkSettings): void {
  perRun.set(run, settings)
}

/** The network settings of the run this code belongs to: its own, or its environment's alone. */
export function currentNetwork(): NetworkSettings {
  const h = host()
  return perRun.get(h)?.() ?? {env: h.io.env}
}

/**
 * An undici dispatcher for requests to `target` under the run's network settings (the webhook
 * forwarder, `webhooks trigger`, `watch --post`). Its owner closes it.
 */
export async function runDispatcher(undici: Undici, target: URL | string, opts: AgentOptions = {}): Promise<Dispatcher> {
  const net = currentNetwork()
  return dispatcherFor(undici, target, net, opts, await trustedCas(net))
}

/**
 * `fetch` under the run's network settings (`watch --post`): Node's own when neither a proxy nor
 * extra CAs apply, else undici's with a dispatcher of its own, closed once the answer is read.
 */
export async function runFetch(url: URL, init: RequestInit, read: (res: Response) => Promise<void> = async (res) => void (await res.body?.cancel())): Promise<Response> {
  if (!needsDispatcher(url, currentNetwork())) {
    const {baselineWasm} = await import('./interop.js')
    baselineWasm()
    const res = await fetch(url, init)
    await read(res)
    return res
  }
  const {loadUndici} = await import('./interop.js')
  const undici = await loadUndici()
  const dispatcher = await runDispatcher(undici, url)
  try {
    const res = (await undici.fetch(url, {...(init as object), dispatcher} as Parameters<Undici['fetch']>[1])) as unknown as Response
    await read(res)
    return res
  } finally {
    await dispatcher.close().catch(() => undefined)
  }
}

/** The error of a request that a proxy turned down: the status it answered, as code PROXY_REFUSED. */
export function proxyRefusal(err: unknown): number | undefined {
  for (let e = err as {message?: unknown; cause?: unknown} | undefined, depth = 0; e && depth < 6; e = e.cause as typeof e, depth++) {
    const m = typeof e.message === 'string' ? /Proxy response \((\d{3})\) !== 200|Proxy Authentication Required \((407)\)/.exec(e.message) : null
    if (m) return Number(m[1] ?? m[2])
  }
  return undefined
}
