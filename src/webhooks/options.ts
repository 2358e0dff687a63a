/** Flag values of the webhook tools, parsed into options with usage errors (exit 2). */
import {WEBHOOK_EVENT_TYPES} from '../api/schemas/events.js'
import {registerSecret} from '../api/redact.js'
import {UsageError} from '../errors.js'
import {parseList} from '../flags.js'

/**
 * The secrets to verify with: `--secret` flags (repeatable) win; otherwise PAYOPS_WEBHOOK_SECRETS
 * (comma-separated) and PAYOPS_WEBHOOK_SECRET. Each is registered so that no message shows it.
 */
export function resolveSecrets(flags: string[] | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  let secrets = (flags ?? []).map((s) => s.trim())
  if (secrets.length === 0) {
    secrets = [...(env.PAYOPS_WEBHOOK_SECRETS ?? '').split(','), env.PAYOPS_WEBHOOK_SECRET ?? ''].map((s) => s.trim()).filter(Boolean)
  }
  if (secrets.some((s) => s === '')) throw new UsageError('--secret is empty.')
  for (const s of secrets) registerSecret(s)
  if (secrets.length === 0) throw new UsageError('Give the signing secret: --secret whsec_… (repeat it during a rotation) or set PAYOPS_WEBHOOK_SECRET.')
  return [...new Set(secrets)]
}

/** A comma-separated list of catalog event types. */
export function parseEventTypes(input: string | undefined, flag: string): string[] | undefined {
  const list = parseList(input, flag)
  if (!list) return undefined
  for (const t of list) {
    if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t)) throw new UsageError(`${flag}: unknown event type "${t}"; known types: ${WEBHOOK_EVENT_TYPES.join(', ')}.`)
  }
  return list
}

/** An http(s) URL to send to. */
export function parseTargetUrl(input: string, flag: string): string {
  let u: URL
  try {
    u = new URL(input)
  } catch {
    throw new UsageError(`${flag} "${input}" is not a valid URL.`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${flag} "${input}" must be an http:// or https:// URL.`)
  return u.href
}

