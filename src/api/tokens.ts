/**
 * Session tokens. The spec shows the response both bare and wrapped in `data`, so both endpoints
 * read the whole body (`bare`) and unwrap `data` when present. A received token is registered as
 * a secret at once, so that no later message or trace line can print it.
 */
import {systemClock} from '../context/host.js'
import {decodeJwt, type JWTPayload} from 'jose'
import type {ApiClient} from './client.js'
import {PATHS} from './paths.js'
import {registerSecret} from './redact.js'
import {describeIssues} from './schemas/common.js'
import {
  PartySessionTokenRequest,
  PayeeSessionTokenRequest,
  SessionTokenResponse,
  type PartyType,
  type SessionToken,
} from './schemas/parties.js'
import {UsageError} from '../errors.js'

export {unwrapData} from './schemas/parties.js'

/** Validates a request body with the schema the API applies; a usage error (nothing sent) if bad. */
function validate<T>(schema: {safeParse(v: unknown): {success: true; data: T} | {success: false; error: import('zod/mini').core.$ZodError}}, input: unknown, what: string): T {
  const r = schema.safeParse(input)
  if (!r.success) throw new UsageError(`Invalid ${what}: ${describeIssues(r.error)}`)
  return r.data
}

/** The claims of a token, decoded without verification (the client has no key); undefined if not a JWT. */
export function decodeClaims(token: string): JWTPayload | undefined {
  try {
    return decodeJwt(token)
  } catch {
    return undefined
  }
}

/** What the commands show: the token, its absolute expiry (from expires_in_seconds) and claims. */
export function describeToken(t: SessionToken, receivedAt: number = systemClock.now()): SessionToken & {expires_at: string; claims?: JWTPayload} {
  const claims = decodeClaims(t.token)
  return {...t, expires_at: new Date(receivedAt + t.expires_in_seconds * 1000).toISOString(), ...(claims ? {claims} : {})}
}

/** Checks a token request before anything is sent or confirmed (exit 2 when invalid). */
export function validateTokenRequest(partyId: string, partyType: PartyType | 'payee-endpoint'): void {
  if (partyType === 'payee-endpoint') validate(PayeeSessionTokenRequest, {payee_id: partyId}, 'session-token request')
  else validate(PartySessionTokenRequest, {party_id: partyId, party_type: partyType}, 'session-token request')
}

export class TokensApi {
  constructor(private readonly client: ApiClient) {}

  /** POST /api/session-tokens: a token for one payee. */
  async forPayee(payeeId: string) {
    const body = validate(PayeeSessionTokenRequest, {payee_id: payeeId}, 'session-token request')
    const res = await this.client.request({method: 'POST', path: PATHS.sessionTokens, body, schema: SessionTokenResponse, bare: true})
    registerSecret(res.data.token)
    return {...res, warning: warningOf(res.body)}
  }

  /** POST /api/session-tokens/party: a token for a payer, a payee or an external party. */
  async forParty(partyId: string, partyType: PartyType) {
    const body = validate(PartySessionTokenRequest, {party_id: partyId, party_type: partyType}, 'session-token request')
    const res = await this.client.request({method: 'POST', path: PATHS.partySessionTokens, body, schema: SessionTokenResponse, bare: true})
    registerSecret(res.data.token)
    return {...res, warning: warningOf(res.body)}
  }
}

function warningOf(body: unknown): string | undefined {
  const w = body && typeof body === 'object' ? (body as Record<string, unknown>).warning : undefined
  return typeof w === 'string' ? w : undefined
}
