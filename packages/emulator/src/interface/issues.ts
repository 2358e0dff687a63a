/**
 * How a request that fails its rules is answered: one line naming each failing field (the first
 * five), the message of a 400 VALIDATION_ERROR. Importing this module also gives zod's mini
 * build its English messages (it installs no locale by itself).
 */
import * as z from 'zod/mini'
import en from 'zod/v4/locales/en.js'

z.config(en())

/** `field.sub: message; other: message` */
export function describeIssues(error: z.core.$ZodError, prefix = ''): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.')
      return path ? `${path}: ${i.message}` : i.message
    })
    .join('; ')
}
