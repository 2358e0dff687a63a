/**
 * `webhooks listen --register`: an endpoint for this listener, created when it starts and deleted
 * when it stops. The endpoint's URL is `--url PUBLIC_URL` (a tunnel to the listener), or the
 * listener's own local URL when the API's base URL is loopback (the emulator). Its signing secret
 * is handed to the listener and never printed unless `--print-secret` asks (or `--secret-out FILE`
 * writes it, mode 0600).
 *
 * Each endpoint registered is remembered in `webhook-registrations.json` in the config dir until it
 * is deleted, so an endpoint left by a listener that was killed is named (with the command that
 * deletes it) the next time a listener registers against the same service.
 */
import {randomUUID} from 'node:crypto'
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {Api} from '../api/index.js'
import {registerSecret} from '../api/redact.js'
import {WEBHOOK_EVENT_TYPES} from '../api/schemas/events.js'
import {webhookUrlProblem} from '../api/schemas/webhooks.js'
import type {CommandContext} from '../context/index.js'
import {ApiError, ResponseError, UsageError} from '../errors.js'
import {createdEndpoint, noSecretSentence} from '../api/webhooks.js'
import {isSymlink} from '../files.js'
import {confirmMutation} from '../movements/command.js'
import {isLoopbackHost} from '../net.js'

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)

export const REGISTRATIONS_FILE = 'webhook-registrations.json'

export interface RegisterOptions {
  /** The public URL the service delivers to (`--url`); default: the listener's local URL on a loopback base URL. */
  url?: string
  /** The endpoint's event types (default: every subscribable type). */
  events?: string[]
  yes?: boolean
}

export interface Registration {
  id: string
  url: string
  secret: string
  /** The command that deletes the endpoint, as the operator would type it. */
  deleteCommand: string
}

interface Remembered {
  base_url: string
  id: string
  url: string
  created_at: string
}

/** The registrations this config dir remembers (endpoints not yet known to be deleted). */
class Registrations {
  private readonly file: string
  constructor(private readonly dir: string) {
    this.file = join(dir, REGISTRATIONS_FILE)
  }

  read(): Remembered[] {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as {registrations?: unknown}
      return Array.isArray(parsed.registrations) ? (parsed.registrations as Remembered[]).filter((r) => r && typeof r.id === 'string' && typeof r.base_url === 'string') : []
    } catch {
      return []
    }
  }

  add(r: Remembered): void {
    this.write([...this.read().filter((x) => !(x.base_url === r.base_url && x.id === r.id)), r])
  }

  remove(baseUrl: string, id: string): void {
    this.write(this.read().filter((x) => !(x.base_url === baseUrl && x.id === id)))
  }

  private write(list: Remembered[]): void {
    if (isSymlink(this.file)) throw new UsageError(`${this.file} is a symbolic link; payops does not write a state file through one.`)
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    const tmp = `${this.file}.${randomUUID()}.tmp`
    writeFileSync(tmp, JSON.stringify({registrations: list}, null, 2) + '\n', {mode: 0o600, flag: 'wx'})
    renameSync(tmp, this.file)
  }
}

/** `payops webhooks delete ID --yes`, with the profile or base URL the operator chose on this command line. */
export function deleteCommandFor(ctx: CommandContext, id: string): string {
  const p = ctx.profile
  const parts = ['payops', 'webhooks', 'delete', id, '--yes']
  if (p.profileName && p.profileProvenance.source === 'flag') parts.push('-p', p.profileName)
  if (p.baseUrl && p.baseUrlProvenance.source === 'flag') parts.push('--base-url', p.baseUrl)
  const env = [p.key.source === 'env' ? 'PAYOPS_API_KEY' : '', p.baseUrlProvenance.source === 'env' ? 'PAYOPS_BASE_URL' : '', p.profileProvenance.source === 'env' ? 'PAYOPS_PROFILE' : ''].filter(Boolean)
  return `${parts.join(' ')}${env.length ? ` (with the same ${env.join(' and ')})` : ''}`
}

/** The URL the endpoint will carry, checked before the listener starts: a usage error when there is none the service can reach. */
export function plannedUrl(baseUrl: string, publicUrl: string | undefined): string | undefined {
  if (publicUrl !== undefined) {
    const problem = webhookUrlProblem(publicUrl)
    if (problem) throw new UsageError(`--url ${problem.startsWith('"') ? problem : `"${publicUrl}" ${problem}`}.`)
    return new URL(publicUrl).href
  }
  if (!isLoopbackHost(new URL(baseUrl).hostname)) {
    throw new UsageError(
      `--register: the service at ${baseUrl} cannot reach this machine's listener; give --url PUBLIC_URL, an https:// address (a tunnel) that reaches it. Without --url the local URL is registered, which only a service on loopback (the emulator) can reach.`,
    )
  }
  return undefined
}

/** The local URL the service on loopback delivers to: an address bound to every interface is reached on 127.0.0.1. */
export function localDeliveryUrl(listenerUrl: string): string {
  const u = new URL(listenerUrl)
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1'
  else if (u.hostname === '[::]') u.hostname = '[::1]'
  return u.href
}

export class Registrar {
  private constructor(
    private readonly ctx: CommandContext,
    private readonly api: Api,
    private readonly baseUrl: string,
    private readonly publicUrl: string | undefined,
    private readonly opts: RegisterOptions,
  ) {}

  /**
   * Checks what can be checked before the listener starts: the API (key and base URL), the URL,
   * the event types, a LIVE confirmation; names endpoints that earlier listeners left behind.
   */
  static async prepare(ctx: CommandContext, opts: RegisterOptions): Promise<Registrar> {
    const api = await ctx.api(['webhooks'])
    const baseUrl = api.client.baseUrl.href
    const publicUrl = plannedUrl(baseUrl, opts.url)
    const remembered = new Registrations(ctx.configDir)
    for (const left of remembered.read().filter((r) => r.base_url === baseUrl)) {
      // One deleted since (by hand, or by its listener after a failed try) is forgotten quietly.
      const gone = await api.webhooks.get(left.id).then(
        () => false,
        (err: unknown) => err instanceof ApiError && err.status === 404,
      )
      if (gone) {
        remembered.remove(baseUrl, left.id)
        continue
      }
      ctx.out.warn(
        `Endpoint ${left.id} (${left.url}) was registered by a listener on ${left.created_at} and was not deleted. If that listener is no longer running, delete it: ${deleteCommandFor(ctx, left.id)}`,
      )
    }
    await confirmMutation(ctx, {yes: opts.yes}, {action: 'Register a webhook endpoint for this listener (deleted when it stops)', details: {url: publicUrl ?? 'this listener\'s local URL'}})
    return new Registrar(ctx, api, baseUrl, publicUrl, opts)
  }

  /** Creates the endpoint for the listener at `listenerUrl`; its secret is registered for redaction. */
  async register(listenerUrl: string): Promise<Registration> {
    const url = this.publicUrl ?? localDeliveryUrl(listenerUrl)
    const res = await this.api.webhooks.create({
      url,
      event_types: this.opts.events ?? [...WEBHOOK_EVENT_TYPES],
      description: `payops webhooks listen (registered ${new Date(this.ctx.clock.now()).toISOString()}; deleted when the listener stops)`,
    })
    const made = createdEndpoint(res.data)
    registerSecret(made.secret)
    // Without an id or a secret this listener can neither delete the endpoint nor verify a delivery.
    if (!made.id || !made.secret) {
      if (made.id) await this.api.webhooks.delete(made.id).catch(() => undefined)
      throw new ResponseError(`${noSecretSentence(made.id)} This listener cannot verify deliveries without it${made.id ? `, so endpoint ${made.id} was deleted again` : ''}; give the secret with --secret and register the endpoint yourself.`, res.status, res.requestId)
    }
    const id = made.id
    const deleteCommand = deleteCommandFor(this.ctx, id)
    try {
      new Registrations(this.ctx.configDir).add({base_url: this.baseUrl, id, url: text(made.config.url) ?? url, created_at: new Date(this.ctx.clock.now()).toISOString()})
    } catch (err) {
      this.ctx.out.warn(`Could not remember endpoint ${id} in the config dir (${(err as Error).message}); if this listener is killed, delete it: ${deleteCommand}`)
    }
    return {id, url: text(made.config.url) ?? url, secret: made.secret, deleteCommand}
  }

  /** Deletes the endpoint; true when it is gone (404: already gone). Errors are the caller's to report. */
  async unregister(reg: Registration): Promise<void> {
    try {
      await this.api.webhooks.delete(reg.id)
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err
    }
    try {
      new Registrations(this.ctx.configDir).remove(this.baseUrl, reg.id)
    } catch {
      // The endpoint is deleted; the note of it is harmless (the next registration names it, and deleting it again answers 404).
    }
  }
}
