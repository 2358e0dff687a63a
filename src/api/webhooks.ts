import type {ApiClient} from './client.js'
import {fillPath} from './url.js'
import {PATHS} from './paths.js'
import {paginate, type PaginateOptions} from './paginate.js'
import {describeIssues} from './schemas/common.js'
import {
  EventTypeEntry,
  WebhookCreateRequest,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookUpdateRequest,
} from './schemas/webhooks.js'
import {UsageError} from '../errors.js'

export interface WebhookCreateInput {
  url: string
  event_types: string[]
  description?: string
}

export interface WebhookUpdateInput {
  url?: string
  event_types?: string[]
  description?: string
}

/** Validates a body with the very schema the API (emulator) applies; a usage error if bad. */
function validate<T>(schema: {safeParse(v: unknown): {success: true; data: T} | {success: false; error: import('zod/mini').core.$ZodError}}, input: unknown, what: string): T {
  const r = schema.safeParse(input)
  if (!r.success) throw new UsageError(`Invalid ${what}: ${describeIssues(r.error)}`)
  return r.data
}

export function validateWebhookCreate(input: WebhookCreateInput): WebhookCreateRequest {
  return validate(WebhookCreateRequest, input, 'webhook endpoint')
}

export function validateWebhookUpdate(input: WebhookUpdateInput): WebhookUpdateRequest {
  const body = validate(WebhookUpdateRequest, input, 'webhook update')
  if (body.url === undefined && body.description === undefined && body.event_types === undefined) {
    throw new UsageError('Nothing to update: give --url, --description and/or --event-types.')
  }
  return body
}

const path = (template: string, id: string) => fillPath(template, {webhook_id: id})

/** What a create's answer (not shown by the spec) told of the new endpoint: its id and secret when it carried them. */
export interface CreatedEndpoint {
  id?: string
  secret?: string
  /** The configuration as answered, without the secret. */
  config: Record<string, unknown>
}

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined)

export function createdEndpoint(data: Record<string, unknown> | undefined): CreatedEndpoint {
  const {secret, ...config} = data ?? {}
  return {id: text(config.id), secret: text(secret), config}
}

/**
 * The sentence for an endpoint created without its secret in the answer: the spec shows no way to
 * read an endpoint's secret, so it names what is left.
 */
export function noSecretSentence(id: string | undefined): string {
  const which = id ? `Webhook endpoint ${id} was created` : 'The webhook endpoint was created (the answer named no id: find it with `payops webhooks list`)'
  return `${which}, but the API's answer carried no signing secret, and the spec shows no way to read one. Get it from the provider, or create a twin whose answer may carry one: payops webhooks rotate-secret ${id ?? 'ID'}.`
}

export class WebhooksApi {
  constructor(private readonly client: ApiClient) {}

  /** Creates an endpoint; the answer (not shown by the spec) is the only one that may carry its signing secret. */
  create(input: WebhookCreateInput) {
    const body = validateWebhookCreate(input)
    return this.client.unshown({method: 'POST', path: PATHS.webhooks, body, schema: WebhookEndpointWithSecret})
  }

  listPage(query: {limit?: number; order?: 'asc' | 'desc'}, cursor?: string) {
    return this.client.page(PATHS.webhooks, {...query, cursor}, WebhookEndpoint)
  }

  list(query: {limit?: number; order?: 'asc' | 'desc'}, opts: PaginateOptions) {
    return paginate((cursor) => this.listPage(query, cursor), opts)
  }

  get(id: string) {
    return this.client.request({method: 'GET', path: path(PATHS.webhook, id), schema: WebhookEndpoint})
  }

  update(id: string, input: WebhookUpdateInput) {
    const body = validateWebhookUpdate(input)
    return this.client.request({method: 'PATCH', path: path(PATHS.webhook, id), body, schema: WebhookEndpoint})
  }

  /** Deletes an endpoint; `data` is the deleted configuration (undefined on a 204). */
  delete(id: string) {
    return this.client.request({method: 'DELETE', path: path(PATHS.webhook, id), schema: WebhookEndpoint})
  }

  setActive(id: string, active: boolean) {
    return this.client.request({method: 'POST', path: path(active ? PATHS.webhookEnable : PATHS.webhookDisable, id), body: {}, schema: WebhookEndpoint})
  }

  async eventTypes(): Promise<EventTypeEntry[]> {
    const page = await this.client.page(PATHS.webhookEventTypes, {}, EventTypeEntry)
    return page.items
  }
}
