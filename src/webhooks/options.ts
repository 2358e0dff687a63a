/** Flag values of the webhook tools, parsed into options with usage errors (exit 2). */
import * as Flags from '@oclif/core/flags'
import type {Readable} from 'node:stream'
import {WEBHOOK_EVENT_TYPES} from '../api/schemas/events.js'
import {registerSecret} from '../api/redact.js'
import {UsageError} from '../errors.js'
import {parseList} from '../flags.js'
import {readBounded} from './input.js'
import {MAX_SECRET_FILE_BYTES} from './limits.js'

/** Printed on stderr when a secret is given with --secret, as --api-key gets its note. */
export const SECRET_FLAG_NOTE =
  'Note: --secret is visible to other users in the process list; prefer PAYOPS_WEBHOOK_SECRET (or PAYOPS_WEBHOOK_SECRETS) or --secret-file FILE (- for stdin).'

/** The --secret-file flag, the same on listen, verify and trigger. */
export function secretFileFlag(summary = 'File holding the signing secret(s), one per line (repeatable); - reads stdin. Unlike --secret, not visible in `ps`.') {
  return Flags.string({summary, multiple: true})
}

/**
 * The secrets in the files named by --secret-file (`-` is stdin): one per line; blank lines and
 * lines starting with `#` are skipped. Each file is read up to MAX_SECRET_FILE_BYTES.
 */
export async function readSecretFiles(paths: readonly string[] | undefined, stdin?: Readable): Promise<string[]> {
  const secrets: string[] = []
  for (const path of paths ?? []) {
    const text = (await readBounded(path, '--secret-file', MAX_SECRET_FILE_BYTES, 'too large for a secret file', stdin)).toString('utf8')
    const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'))
    if (lines.length === 0) throw new UsageError(`--secret-file ${path === '-' ? '(stdin)' : path} holds no secret.`)
    secrets.push(...lines)
  }
  return secrets
}

/**
 * The secrets to verify with: `--secret` flags (repeatable) and the secrets of `--secret-file`
 * win; otherwise PAYOPS_WEBHOOK_SECRETS (comma-separated) and PAYOPS_WEBHOOK_SECRET. Each is
 * registered so that no message shows it.
 */
export function resolveSecrets(flags: string[] | undefined, env: NodeJS.ProcessEnv, fromFiles: readonly string[] = []): string[] {
  let secrets = [...(flags ?? []).map((s) => s.trim()), ...fromFiles]
  if (secrets.length === 0) {
    secrets = [...(env.PAYOPS_WEBHOOK_SECRETS ?? '').split(','), env.PAYOPS_WEBHOOK_SECRET ?? ''].map((s) => s.trim()).filter(Boolean)
  }
  if (secrets.some((s) => s === '')) throw new UsageError('--secret is empty.')
  for (const s of secrets) registerSecret(s)
  if (secrets.length === 0) throw new UsageError('Give the signing secret: set PAYOPS_WEBHOOK_SECRET, or use --secret-file FILE or --secret whsec_… (repeat either during a rotation).')
  return [...new Set(secrets)]
}

/**
 * Every way a command takes its secrets, in one call: --secret (with the `ps` note on stderr),
 * --secret-file (`-` reads `stdin`), then the environment `env`.
 */
export async function secretsFromFlags(f: {secret?: string | string[]; 'secret-file'?: string | string[]}, note: (line: string) => void, env: NodeJS.ProcessEnv, stdin?: Readable): Promise<string[]> {
  const flags = f.secret === undefined ? undefined : Array.isArray(f.secret) ? f.secret : [f.secret]
  const files = f['secret-file'] === undefined ? undefined : Array.isArray(f['secret-file']) ? f['secret-file'] : [f['secret-file']]
  if (files && files.filter((p) => p === '-').length > 1) throw new UsageError('--secret-file - can be given once (stdin is read once).')
  const fromFiles = await readSecretFiles(files, stdin)
  const secrets = resolveSecrets(flags, env, fromFiles)
  if (flags?.length) note(SECRET_FLAG_NOTE)
  return secrets
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
