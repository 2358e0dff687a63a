/** A log line that repeats under load: the first at once, then one per interval with the count since. */
import {systemClock} from '../context/host.js'

/** Logs the first occurrence at once, then at most one line per interval with the count since. */
export class ThrottledLog {
  private pending = 0
  private last = 0
  private timer?: NodeJS.Timeout
  constructor(
    private readonly log: (line: string) => void,
    private readonly text: (n: number) => string,
    private readonly intervalMs = 1_000,
  ) {}

  hit(): void {
    const now = systemClock.now()
    if (now - this.last >= this.intervalMs && !this.timer) {
      this.last = now
      this.log(this.text(1))
      return
    }
    this.pending++
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs - (now - this.last)).unref()
  }

  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending === 0) return
    this.last = systemClock.now()
    const n = this.pending
    this.pending = 0
    this.log(this.text(n))
  }
}
