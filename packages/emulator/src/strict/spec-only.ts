/**
 * Two behaviours of a server that keeps only to the letter of the spec, each switched on by itself
 * through `POST /_emulator/faults` or, all together, by the `strict` setting:
 *
 * - `has_more_without_cursor`: a list page that has more answers `has_more: true` with no
 *   `next_cursor` (the spec makes `next_cursor` optional), so the rest of the list cannot be read;
 * - `webhook_timestamps: "iso"`: deliveries carry `X-Webhook-Timestamp` as an ISO 8601 date-time
 *   (the spec's convention for every timestamp) instead of unix seconds, signed as sent.
 *
 * Both go back to off on `DELETE /_emulator/faults` and on a reset.
 */
export type WebhookTimestampFormat = 'unix' | 'iso'

export class SpecOnlySwitches {
  hasMoreWithoutCursor = false
  webhookTimestamps: WebhookTimestampFormat = 'unix'

  reset(): void {
    this.hasMoreWithoutCursor = false
    this.webhookTimestamps = 'unix'
  }

  describe(strict: boolean): {has_more_without_cursor: boolean; webhook_timestamps: WebhookTimestampFormat} {
    return {has_more_without_cursor: this.cursorless(strict), webhook_timestamps: this.timestampFormat(strict)}
  }

  cursorless(strict: boolean): boolean {
    return strict || this.hasMoreWithoutCursor
  }

  timestampFormat(strict: boolean): WebhookTimestampFormat {
    return strict ? 'iso' : this.webhookTimestamps
  }
}

/** A list answer as such a server gives it: `has_more: true` and no `next_cursor`. */
export function withoutCursor(status: number, body: unknown): unknown {
  if (status < 200 || status >= 300 || !body || typeof body !== 'object' || Array.isArray(body)) return body
  const o = body as Record<string, unknown>
  if (!Array.isArray(o.data) || o.has_more !== true) return body
  const {next_cursor: _dropped, ...rest} = o
  return rest
}

/** The `X-Webhook-Timestamp` of a delivery made at `ms`. */
export function deliveryTimestamp(format: WebhookTimestampFormat, ms: number): string {
  return format === 'iso' ? new Date(ms).toISOString() : String(Math.floor(ms / 1000))
}
