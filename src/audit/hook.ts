/**
 * The audit hook handed to the API client and the movement pipeline: the one path by which a
 * mutating request is recorded, an intent before it is sent (a failure to write it stops the
 * request) and an outcome after.
 */
import type {AuditHook} from '../api/client.js'
import {AuditTrailError, PayopsError, UsageError} from '../errors.js'
import type {AuditLog} from './log.js'

export function auditHook(dir: string, base: {profile: string | null; mode: 'live' | 'test' | 'unknown'; key_id: string | null; operator: string | null; os_user: string; host: string}, warn: (line: string) => void): AuditHook {
  let log: Promise<AuditLog> | undefined
  const open = () => (log ??= import('./log.js').then((m) => new m.AuditLog(dir)))
  return {
    intent: async (info, check) => {
      try {
        await (await open()).append({kind: 'intent', ...base, ...info}, check)
      } catch (err) {
        // A check that refused in the trail's transaction: its own error (a limit: exit 3), nothing sent.
        if (err instanceof PayopsError && !(err instanceof AuditTrailError) && !(err instanceof UsageError)) throw err
        // A trail that was cut or whose head changed: exit 1 with the fix, nothing sent.
        if (err instanceof AuditTrailError) throw new AuditTrailError(`Nothing was sent: ${err.message}`)
        throw new UsageError(`Cannot write the audit trail in ${dir} (${(err as Error).message}); nothing was sent.`)
      }
    },
    outcome: async (info, opts) => {
      try {
        await (await open()).append({kind: 'outcome', ...base, ...info})
      } catch (err) {
        if (opts?.strict) throw new Error(`cannot write the audit trail in ${dir}: ${(err as Error).message}`)
        warn(`could not record the outcome in the audit trail: ${(err as Error).message}`)
      }
    },
    drain: async () => {
      if (log) await (await log).close()
    },
  }
}
