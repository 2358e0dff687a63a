/**
 * Loading CommonJS packages from the ESM bundle: bundled, a CommonJS module's exports may arrive
 * as the namespace itself or as its `default`. One helper, one loader per package, loaded on demand.
 */

/** The module's exports, whether they came as the namespace or as its default export. */
export function cjsExports<T extends object>(ns: T, marker: string): T {
  return marker in ns ? ns : ((ns as {default?: unknown}).default as T)
}

/**
 * From here on V8 compiles WebAssembly with its baseline compiler only. undici (Node's fetch and the
 * undici package alike) parses answers with a WebAssembly module; by default V8 also re-compiles it
 * in the background with its optimising compiler, and Node waits for that work before the process
 * may exit (about 60 ms after a short command has finished). Baseline code parses as fast for
 * payops' traffic. Set when undici is first about to be used, not at start-up: a V8 flag set at run
 * time also turns off the code cache of Node's own modules loaded after it, which a command that
 * never uses undici (one-shot commands use node:http) should not pay.
 */
export function baselineWasm(): void {
  if (wasmSet) return
  wasmSet = true
  process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only')
}
let wasmSet = false

let undici: Promise<typeof import('undici')> | undefined
export const loadUndici = () => (undici ??= (baselineWasm(), import('undici').then((m) => cjsExports(m, 'Agent'))))

export const loadLockfile = () => import('proper-lockfile').then((m) => cjsExports(m, 'lock'))

export const loadJmespath = () => import('@jmespath-community/jmespath').then((m) => cjsExports(m, 'search'))
