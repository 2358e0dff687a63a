/** Progress on a terminal, drawn on the stream it is given (the command context's stderr). */
import type {Writable} from 'node:stream'

/** A progress bar on a terminal's stderr: rows done, rows per second of this run and the ETA (`moves import`). */
export async function rowsProgress(stream: Writable, total: number): Promise<{update(n: number): void; stop(): void}> {
  const {default: cliProgress} = await import('cli-progress')
  const bar = new cliProgress.SingleBar(
    {
      format: 'moves {bar} {value}/{total} ({percentage}%) {rate} rows/s eta {eta_formatted}',
      stream: stream as NodeJS.WriteStream,
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 100,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  )
  bar.start(total, 0, {rate: 0})
  let stopped = false
  let first: number | undefined
  let started = 0
  return {
    update: (n) => {
      // The rate of this run: rows done before it (from the journal) are not counted.
      if (first === undefined) {
        first = n
        started = performance.now()
      }
      const seconds = (performance.now() - started) / 1000
      bar.update(n, {rate: seconds > 0 ? Math.round((n - first) / seconds) : 0})
    },
    stop: () => {
      if (!stopped) bar.stop()
      stopped = true
    },
  }
}
