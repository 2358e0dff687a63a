/**
 * Transport fault injection for reliability tests: 5xx answers before the handler runs (nothing
 * changed) or AFTER it committed its write (the dangerous case: the server acted, the client saw an
 * error), connection resets (before or after), and latency. Random at a rate with a seeded
 * generator, or queued one by one for deterministic tests. Only `/api/` requests are affected.
 */
import * as z from 'zod/mini'
import {mulberry32} from '../store/random.js'

export const FAULT_KINDS = ['500', '502', '503', '504', '429', 'reset', 'latency'] as const
export type FaultKind = (typeof FAULT_KINDS)[number]
export type FaultPhase = 'before' | 'after'

export interface Fault {
  kind: FaultKind
  phase: FaultPhase
}

export const FaultConfig = z.object({
  rate: z.optional(z.number().check(z.gte(0, 'rate must be 0..1'), z.lte(1, 'rate must be 0..1'))),
  kinds: z.optional(z.array(z.enum(FAULT_KINDS, {message: `kinds must be among ${FAULT_KINDS.join(', ')}`})).check(z.minLength(1))),
  phases: z.optional(z.array(z.enum(['before', 'after'])).check(z.minLength(1))),
  seed: z.optional(z.int()),
  latency_ms: z.optional(z.int().check(z.gte(0), z.lte(60_000))),
  retry_after: z.optional(z.nullable(z.union([z.int().check(z.gte(0), z.lte(3600)), z.string().check(z.minLength(1))]))),
  /** Faults to inject on the next requests, in order, before any random ones. */
  queue: z.optional(z.array(z.object({kind: z.enum(FAULT_KINDS), phase: z.optional(z.enum(['before', 'after']))}))),
  /** Only requests whose method is listed (default: all). */
  methods: z.optional(z.array(z.string())),
  /** Answers in the documented drift (not a transport fault; kept here so one control call sets up a run). */
  drift: z.optional(z.boolean({message: 'drift must be a boolean'})),
  /** Answers in the least generous reading of the spec (strict.ts); turns on every behaviour of spec-only.ts too. */
  strict: z.optional(z.boolean({message: 'strict must be a boolean'})),
  /** List pages that have more answer `has_more: true` without `next_cursor` (spec-only.ts). */
  has_more_without_cursor: z.optional(z.boolean({message: 'has_more_without_cursor must be a boolean'})),
  /** `iso`: webhook deliveries carry an ISO 8601 `X-Webhook-Timestamp` (spec-only.ts). */
  webhook_timestamps: z.optional(z.enum(['unix', 'iso'], {message: 'webhook_timestamps must be unix or iso'})),
})
export type FaultConfig = z.infer<typeof FaultConfig>

export class TransportFaults {
  rate = 0
  kinds: FaultKind[] = ['500', '503', 'reset', 'latency']
  phases: FaultPhase[] = ['before', 'after']
  latencyMs = 200
  retryAfter: number | string | null = null
  methods: string[] | null = null
  private queue: Fault[] = []
  private random: () => number = Math.random
  readonly injected: Record<string, number> = {}

  configure(cfg: FaultConfig): void {
    if (cfg.rate !== undefined) this.rate = cfg.rate
    if (cfg.kinds) this.kinds = [...cfg.kinds]
    if (cfg.phases) this.phases = [...cfg.phases]
    if (cfg.seed !== undefined) this.random = mulberry32(cfg.seed)
    if (cfg.latency_ms !== undefined) this.latencyMs = cfg.latency_ms
    if (cfg.retry_after !== undefined) this.retryAfter = cfg.retry_after
    if (cfg.methods) this.methods = cfg.methods.map((m) => m.toUpperCase())
    if (cfg.queue) this.queue.push(...cfg.queue.map((f) => ({kind: f.kind, phase: f.phase ?? 'before'})))
  }

  reset(): void {
    this.rate = 0
    this.queue = []
    this.methods = null
    this.retryAfter = null
    for (const k of Object.keys(this.injected)) delete this.injected[k]
  }

  /** The fault for this request, if any (consumes a queued one first). */
  pick(method: string): Fault | undefined {
    if (this.methods && !this.methods.includes(method)) return undefined
    let fault = this.queue.shift()
    if (!fault && this.rate > 0 && this.random() < this.rate) {
      const kind = this.kinds[Math.floor(this.random() * this.kinds.length)]
      const phase = this.phases[Math.floor(this.random() * this.phases.length)]
      fault = {kind, phase}
    }
    if (fault) {
      const key = `${fault.kind}:${fault.phase}`
      this.injected[key] = (this.injected[key] ?? 0) + 1
    }
    return fault
  }

  describe(): Record<string, unknown> {
    return {
      rate: this.rate,
      kinds: this.kinds,
      phases: this.phases,
      latency_ms: this.latencyMs,
      retry_after: this.retryAfter,
      queued: this.queue.length,
      injected: {...this.injected},
    }
  }
}

