/**
 * `webhooks verify`: one offline signature check of a raw body (from a file or the context's
 * stdin). Prints `valid` on a terminal, `{"valid":true,"secret_index":N}` in machine formats; a
 * failure is an error whose class carries the exit code (1 invalid, 2 malformed input).
 */
import type {CommandContext} from '../context/index.js'
import {UsageError} from '../errors.js'
import type {Column} from '../output/index.js'
import {readBounded} from './input.js'
import {MAX_BODY_BYTES} from './limits.js'
import {secretsFromFlags} from './options.js'
import {verify} from './signature.js'
import {verificationError} from './tools.js'

export interface VerifyOptions {
  secret?: string[]
  secretFile?: string[]
  timestamp: string
  signature: string
  /** File with the raw body; undefined or `-` reads stdin. */
  payloadFile?: string
  /** Also reject timestamps more than this many seconds from now. */
  tolerance?: number
}

export const VERIFY_COLUMNS: Column[] = [{key: 'valid'}, {key: 'secret_index', header: 'secret index'}]

export async function runVerify(opts: VerifyOptions, ctx: CommandContext): Promise<void> {
  const {io, out} = ctx
  const payloadFromStdin = opts.payloadFile === undefined || opts.payloadFile === '-'
  if (payloadFromStdin && opts.secretFile?.includes('-')) throw new UsageError('stdin cannot carry both the payload and the secret: give --payload-file FILE or --secret-file FILE.')
  const secrets = await secretsFromFlags({secret: opts.secret, 'secret-file': opts.secretFile}, (line) => out.note(line), io.env, io.stdin)
  if (opts.payloadFile === undefined && io.stdinIsTTY) throw new UsageError('Give the raw body with --payload-file FILE or on stdin.')
  const rawBody = await readBounded(opts.payloadFile, '--payload-file', MAX_BODY_BYTES, 'the largest body `webhooks listen` accepts', io.stdin)
  const result = verify({
    secrets,
    timestamp: opts.timestamp.trim(),
    signature: opts.signature.trim(),
    rawBody,
    toleranceSec: opts.tolerance,
    nowMs: ctx.clock.now(),
  })
  if (!result.ok) throw verificationError(result.reason, opts.tolerance)
  await out.result({valid: true, secret_index: result.secretIndex}, VERIFY_COLUMNS, 'valid', {oneLine: true})
}
