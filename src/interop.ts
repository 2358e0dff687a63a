/**
 * Loading CommonJS packages from the ESM bundle: bundled, a CommonJS module's exports may arrive
 * as the namespace itself or as its `default`. One helper, one loader per package, loaded on demand.
 */

/** The module's exports, whether they came as the namespace or as its default export. */
export function cjsExports<T extends object>(ns: T, marker: string): T {
  return marker in ns ? ns : ((ns as {default?: unknown}).default as T)
}

let undici: Promise<typeof import('undici')> | undefined
export const loadUndici = () => (undici ??= import('undici').then((m) => cjsExports(m, 'Agent')))

export const loadLockfile = () => import('proper-lockfile').then((m) => cjsExports(m, 'lock'))

export const loadJmespath = () => import('@jmespath-community/jmespath').then((m) => cjsExports(m, 'search'))
