/**
 * Reading an HTTP request body with a cap. A body over `max` is drained, so that the client reads
 * the 413 on a connection that stays usable; one over `drainMax` (declared or sent) is answered at
 * once and the connection closed. Nothing over `max` is ever kept in memory.
 */
import type {IncomingMessage} from 'node:http'

export type BodyRead = {kind: 'body'; body: Buffer} | {kind: 'too_large'; close: boolean}

const EMPTY = Buffer.alloc(0)

export function readCappedBody(req: IncomingMessage, max: number, drainMax: number): Promise<BodyRead> {
  const len = req.headers['content-length']
  if (len === '0' || (len === undefined && req.headers['transfer-encoding'] === undefined)) return Promise.resolve({kind: 'body', body: EMPTY})
  if (len !== undefined && Number(len) > drainMax) return Promise.resolve({kind: 'too_large', close: true})
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let over = false
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > drainMax) {
        req.off('data', onData)
        resolve({kind: 'too_large', close: true})
      } else if (size > max) {
        over = true
        chunks.length = 0
      } else chunks.push(chunk)
    }
    req.on('data', onData)
    req.once('end', () => resolve(over ? {kind: 'too_large', close: false} : {kind: 'body', body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)}))
    req.once('error', reject)
    req.once('close', () => reject(new Error('request closed before its body was read')))
  })
}
