/** What `webhooks listen` prints for an event in `format`, through the output layer (shared by the listener tests). */
import {Writable} from 'node:stream'
import {Output} from '../../src/output/index.js'
import type {AcceptedEvent} from '../../src/webhooks/listener.js'
import {eventPrinter} from '../../src/webhooks/listen-command.js'

export async function printer(format: 'table' | 'ndjson'): Promise<(e: AcceptedEvent) => string> {
  let text = ''
  const stdout = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString()
      cb()
    },
  })
  const print = await eventPrinter(new Output({format, color: false, stdout, stderr: stdout}), false)
  return (e) => {
    text = ''
    print(e)
    return text
  }
}
