/**
 * Keeps API keys and signing secrets out of every message, error and trace. Exact secrets
 * registered at run time are replaced, and anything shaped like a key is masked as a fallback.
 */
import {createHash} from 'node:crypto'

const KEY_SHAPE = /\b(live|test)_[A-Za-z0-9]{12,}\b/g
const SECRET_SHAPE = /\bwhsec_[A-Za-z0-9+/=_-]{8,}/g
/** A JWT (session token), also cut short by a truncated trace: `eyJ<header>.eyJ<claims>[.<signature>]`. */
const JWT_SHAPE = /\beyJ[A-Za-z0-9_-]{4,}\.(?:eyJ[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?)?/g

/** `live_9f8e7d6c5b4a3a1b2` -> `live_…a1b2` */
export function redactKey(key: string | undefined | null): string {
  if (!key) return '(none)'
  const m = /^(live_|test_|whsec_)/.exec(key)
  const prefix = m ? m[1] : ''
  if (key.length <= prefix.length + 8) return `${prefix}…`
  return `${prefix}…${key.slice(-4)}`
}

/**
 * A key's id in the audit trail: the first 16 hex digits of a SHA-256 of the key (which cannot be
 * turned back into the key), so that records can be told apart by the key that made them.
 */
export function keyIdOf(key: string | undefined | null): string | null {
  return key ? createHash('sha256').update(`payops key id\0${key}`).digest('hex').slice(0, 16) : null
}

const secrets = new Set<string>()

/** Registers a value that must never be printed verbatim (keys, secrets, tokens). */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 8) secrets.add(value)
}

export function redact(text: string): string {
  let out = text
  for (const s of secrets) {
    if (out.includes(s)) out = out.split(s).join(redactKey(s))
  }
  return out
    .replace(KEY_SHAPE, (k) => redactKey(k))
    .replace(SECRET_SHAPE, (k) => redactKey(k))
    .replace(JWT_SHAPE, (t) => `eyJ…${t.length > 40 ? t.slice(-4) : ''}`)
}

/** The user name and password of a URL (a base URL `https://user:pass@host/`): never shown. */
export function registerUrlSecrets(url: URL): void {
  if (!url.username && !url.password) return
  for (const s of [url.password, decodeURIComponent(url.password), `${url.username}:${url.password}`, `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`]) {
    if (s && s !== ':') registerSecret(s)
  }
}

/** A URL as it may be shown: credentials before the host replaced with `…@`, the rest as it is. */
export function redactUrl(value: string | undefined | null): string {
  if (!value) return '(none)'
  try {
    registerUrlSecrets(new URL(value))
  } catch {
    // Not a URL: the pattern below still hides what stands before an @ of its authority.
  }
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1…@')
}

/** Headers that carry credentials by their name. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'])
const CREDENTIAL_NAME = /(secret|token|passw|signature|api-?key|auth|session|cookie|credential)/i

/**
 * The one rule of what counts as a credential header: `Authorization`, `Proxy-Authorization`,
 * `Cookie`, `Set-Cookie`, `x-api-key`, any header whose name speaks of a secret, token, password,
 * signature, key, auth, session, cookie or credential, and the names in `marked`
 * (PAYOPS_REDACT_HEADERS, lower case). Traces redact them; the webhook event store keeps none but
 * the event's own signature, and a resend carries only that signature.
 */
export function isCredentialHeader(name: string, marked: readonly string[] = []): boolean {
  const lower = name.toLowerCase()
  return CREDENTIAL_HEADERS.has(lower) || CREDENTIAL_NAME.test(lower) || marked.includes(lower)
}

/**
 * A header as a trace shows it: a credential-bearing one (isCredentialHeader) keeps only its
 * scheme word and last four characters.
 */
export function describeHeader(name: string, value: string, marked: readonly string[] = []): string {
  const lower = name.toLowerCase()
  if (!isCredentialHeader(lower, marked)) return `${name}: ${redact(value)}`
  // An API key keeps its mode prefix: a trace tells a LIVE key from a test one.
  if (lower === 'x-api-key') return `${name}: ${redactKey(value)}`
  const m = /^(\S+)\s+(\S.*)$/.exec(value.trim())
  const [scheme, secret] = m && /^[A-Za-z-]+$/.test(m[1]) ? [`${m[1]} `, m[2]] : ['', value.trim()]
  return `${name}: ${scheme}${secret.length > 12 ? `…${secret.slice(-4)}` : '…'}`
}

/** The header names PAYOPS_REDACT_HEADERS marks (comma-separated), lower-cased. */
export function markedHeaders(env: NodeJS.ProcessEnv): string[] {
  return (env.PAYOPS_REDACT_HEADERS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)
}
