/** Webhook endpoints, each with its own URL, signing secret and event-type allowlist. */
import {newId, type Row, type StoreCore, type Table} from './core.js'

export interface WebhookRecord extends Row {
  url: string
  description: string | null
  is_active: boolean
  /** Sorted allowlist. */
  event_types: string[]
  /** The signing secret (`whsec_…`); returned by the API only at creation. */
  secret: string
  created_at: string
  updated_at: string
}

/** What an entity keeps for this area. */
export interface WebhookTables {
  readonly webhooks: Table<WebhookRecord>
}

export class WebhooksStore {
  constructor(private readonly core: StoreCore) {}

  create(entity: WebhookTables, init: {url: string; description: string | null; event_types: string[]; secret: string}): WebhookRecord {
    const now = this.core.now()
    const rec: WebhookRecord = {
      id: newId(),
      seq: this.core.nextSeq(),
      url: init.url,
      description: init.description,
      is_active: true,
      event_types: [...init.event_types].sort(),
      secret: init.secret,
      created_at: now,
      updated_at: now,
    }
    entity.webhooks.insert(rec)
    this.core.changedRecord(entity.webhooks, rec)
    return rec
  }

  /** Changes only the given fields; `event_types` replaces the allowlist. */
  update(entity: WebhookTables, hook: WebhookRecord, patch: {url?: string; description?: string | null; event_types?: string[]; is_active?: boolean}): WebhookRecord {
    if (patch.url !== undefined) hook.url = patch.url
    if (patch.description !== undefined) hook.description = patch.description
    if (patch.event_types !== undefined) hook.event_types = [...patch.event_types].sort()
    if (patch.is_active !== undefined) hook.is_active = patch.is_active
    hook.updated_at = this.core.now()
    this.core.changedRecord(entity.webhooks, hook)
    return hook
  }

  delete(entity: WebhookTables, id: string): boolean {
    const hook = entity.webhooks.get(id)
    if (!hook) return false
    entity.webhooks.delete(id)
    this.core.removedRecord(entity.webhooks, hook)
    return true
  }
}
