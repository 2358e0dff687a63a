/**
 * `emulator start --strict` (and `{"strict": true}` on POST /_emulator/faults): the emulator serves
 * the least generous reading of the spec, so that payops is tested against a server that promises
 * only what the spec says. Like drift (drift.ts), one response transform applied by the server
 * (http.ts) to each 2XX answer of an `/api/` route after its handler ran (and after drift, when
 * both are on); the routes keep building the full shape. Strict behaviours of the routes
 * themselves read `app.strict` (a simulated credit's sandbox reference, see routes/treasury.ts).
 *
 * - lists: no `client_metadata` on any item (the spec lists it as optional and never promises to
 *   echo it), no `total_count`, `previous_cursor` or `warning: null`;
 * - where the spec shows no answer, the least of one: move approve answers its status with `{}`
 *   (a 207 keeps only its `warning`), move cancel and account-transfer approve answer their status
 *   with no body at all, an account-transfer create answers 201 with the transfer as listed
 *   (without `client_metadata`) and, with async initiation, 202 with an empty body;
 * - a webhook endpoint's create answers without its signing secret;
 * - the balance answers only the current balance and its currency;
 * - the sandbox reference of a simulated credit (assumed to be the Idempotency-Key) is ignored: a
 *   repeated one credits again.
 */
import {PATHS, type PathName} from '../interface/paths.js'

type Obj = Record<string, unknown>
/** The strict answer (`undefined`: no body) from the full one. */
type Minimal = (body: Obj, status: number) => Obj | undefined

const isObj = (v: unknown): v is Obj => Boolean(v) && typeof v === 'object' && !Array.isArray(v)

const without = (o: unknown, ...fields: string[]): unknown => {
  if (!isObj(o)) return o
  const out = {...o}
  for (const f of fields) delete out[f]
  return out
}

/** Only a 207's warning: what the spec's status codes carry. */
const statusOnly: Minimal = (body) => (typeof body.warning === 'string' ? {warning: body.warning} : {})
const noBody: Minimal = () => undefined
const MINIMAL: Array<[string, PathName, Minimal]> = [
  ['POST', 'moveApprove', statusOnly],
  ['DELETE', 'moveCancel', noBody],
  ['POST', 'transferApprove', noBody],
  ['POST', 'transferCreate', (body, status) => (status === 202 ? undefined : {...body, data: without(body.data, 'client_metadata')})],
  ['POST', 'webhooks', (body) => ({...body, data: without(body.data, 'secret')})],
  ['GET', 'treasuryAccountBalance', (body) => {
    const d = isObj(body.data) ? body.data : {}
    return {data: {current_balance_in_minor_units: d.current_balance_in_minor_units, currency_code: d.currency_code}}
  }],
]

const routeKey = (method: string, template: string) => `${method} ${template.replace(/\{([^}/]+)\}/g, ':$1')}`
const BY_ROUTE = new Map(MINIMAL.map(([method, name, fn]) => [routeKey(method, PATHS[name]), fn]))

/** The strict body of a 2XX answer of `METHOD pattern` (`pattern` as the router names it); undefined: no body. */
export function strictBody(method: string, pattern: string, status: number, body: unknown): unknown {
  if (status < 200 || status >= 300 || !isObj(body)) return body
  const out: Obj = {...body}
  if (out.warning === null || out.warning === undefined) delete out.warning
  const minimal = BY_ROUTE.get(`${method} ${pattern}`)
  if (minimal) return minimal(out, status)
  if (Array.isArray(out.data)) {
    out.data = out.data.map((item) => without(item, 'client_metadata'))
    delete out.total_count
    delete out.previous_cursor
  }
  return out
}
