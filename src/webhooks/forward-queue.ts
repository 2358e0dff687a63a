/**
 * A bounded queue with a concurrency cap: at most `concurrency` jobs run at once and at most
 * `capacity` wait. When both are full, `offer` refuses the job and the caller pushes back (the
 * listener answers 503 with Retry-After), so memory stays bounded however slow the target is.
 */
import {systemClock} from '../context/host.js'

export class ForwardQueue<T> {
  private readonly waiting: T[] = []
  private active = 0
  private idle: Array<() => void> = []
  private stopped = false
  /** Recent job durations (ms), smoothed: the basis of `retryAfterSeconds`. */
  private avgMs = 0

  constructor(
    readonly concurrency: number,
    readonly capacity: number,
    private readonly run: (job: T) => Promise<void>,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a whole number >= 1')
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError('capacity must be a whole number >= 0')
  }

  get inFlight(): number {
    return this.active
  }

  get queued(): number {
    return this.waiting.length
  }

  /** True when a job offered now would be taken (it would run at once, or wait in the queue). */
  get hasRoom(): boolean {
    return !this.stopped && (this.active < this.concurrency || this.waiting.length < this.capacity)
  }

  /** True when `n` jobs offered now would all be taken (0: always). */
  hasRoomFor(n: number): boolean {
    if (n <= 0) return true
    return !this.stopped && Math.max(0, this.concurrency - this.active) + (this.capacity - this.waiting.length) >= n
  }

  /** Takes the job (runs it now or queues it); false, and nothing kept, when there is no room. */
  offer(job: T): boolean {
    if (!this.hasRoom) return false
    this.waiting.push(job)
    this.pump()
    return true
  }

  /** A sensible Retry-After for a refused job: the time the work ahead of it should take, 1 to 60 s. */
  retryAfterSeconds(): number {
    const rounds = Math.ceil((this.waiting.length + this.active) / this.concurrency)
    return Math.min(60, Math.max(1, Math.ceil((rounds * (this.avgMs || 1000)) / 1000)))
  }

  private pump(): void {
    while (!this.stopped && this.active < this.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift() as T
      this.active++
      const started = systemClock.now()
      let p: Promise<void>
      try {
        p = Promise.resolve(this.run(job))
      } catch (err) {
        p = Promise.reject(err)
      }
      p.catch(() => undefined).finally(() => {
        const ms = systemClock.now() - started
        this.avgMs = this.avgMs === 0 ? ms : 0.8 * this.avgMs + 0.2 * ms
        this.active--
        this.pump()
        if (this.active === 0 && this.waiting.length === 0) for (const resolve of this.idle.splice(0)) resolve()
      })
    }
  }

  /** Resolves when nothing runs or waits, or after `ms`; true when it went idle. */
  async drain(ms: number): Promise<boolean> {
    if (this.active === 0 && this.waiting.length === 0) return true
    let timer: NodeJS.Timeout | undefined
    const idle = new Promise<boolean>((resolve) => this.idle.push(() => resolve(true)))
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms)
      timer.unref()
    })
    const done = await Promise.race([idle, late])
    clearTimeout(timer)
    return done
  }

  /** Refuses new jobs and drops the waiting ones; returns how many were dropped. */
  stop(): number {
    return this.stopAndTake().length
  }

  /** Refuses new jobs and hands back the waiting ones, which will not run. */
  stopAndTake(): T[] {
    this.stopped = true
    return this.waiting.splice(0)
  }
}
