/**
 * Session tokens: real HS256 JWTs signed with the emulator's own secret (kept in the store, so
 * tokens stay verifiable across restarts with --state).
 *
 * - POST /api/session-tokens `{payee_id}`: the payee must be the caller's (404 PAYEE_NOT_FOUND);
 *   answers the token BARE: `{token, expires_in_seconds, scopes}`.
 * - POST /api/session-tokens/party `{party_id, party_type}`: a payee must be the caller's
 *   (404 PAYEE_NOT_FOUND), a payer too (404 NOT_FOUND); an `external` party is the caller's own
 *   reference to someone outside the service and is not looked up. Answers `{data: {...}}`.
 */
import {PATHS} from '../interface/paths.js'
import {randomUUID} from 'node:crypto'
import {SignJWT} from 'jose'
import {PartySessionTokenRequest, PayeeSessionTokenRequest, type PartyType} from '../interface/parties.js'
import type {AppContext} from '../app.js'
import {notFound} from '../lib/http-error.js'
import {ok, parseInput} from '../server/handler.js'
import type {Router} from '../server/router.js'
import type {Entity} from '../store/index.js'
import {findPayee} from './parties.js'

export const SESSION_TOKEN_ISSUER = 'payops-emulator'
export const SESSION_TOKEN_TTL_SECONDS = 900
export const PAYEE_ENDPOINT_SCOPES = ['list_methods', 'add_method', 'set_default', 'delete_method', 'view_payee'] as const
export const PARTY_SCOPES: Record<PartyType, readonly string[]> = {
  payee: ['payee_manage'],
  payer: ['payer_manage'],
  external: ['external_manage'],
}

export interface MintedToken {
  token: string
  expires_in_seconds: number
  scopes: string[]
}

/** The HS256 key of the store's signing secret. */
export function signingKey(app: AppContext): Uint8Array {
  return new Uint8Array(Buffer.from(app.store.tokens.signingSecret(), 'hex'))
}

export async function mintSessionToken(app: AppContext, entity: Entity, partyId: string, partyType: PartyType, scopes: readonly string[]): Promise<MintedToken> {
  const iat = Math.floor(Date.now() / 1000)
  const token = await new SignJWT({party_type: partyType, entity_id: entity.id, scopes: [...scopes]})
    .setProtectedHeader({alg: 'HS256', typ: 'JWT'})
    .setIssuer(SESSION_TOKEN_ISSUER)
    .setSubject(partyId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + SESSION_TOKEN_TTL_SECONDS)
    .setJti(randomUUID())
    .sign(signingKey(app))
  return {token, expires_in_seconds: SESSION_TOKEN_TTL_SECONDS, scopes: [...scopes]}
}

export function register(router: Router, app: AppContext): void {
  router.add('POST', PATHS.sessionTokens, async (ctx) => {
    const body = parseInput(PayeeSessionTokenRequest, ctx.body)
    const payee = findPayee(ctx.entity, body.payee_id)
    return ok(await mintSessionToken(app, ctx.entity, payee.id, 'payee', PAYEE_ENDPOINT_SCOPES))
  })

  router.add('POST', PATHS.partySessionTokens, async (ctx) => {
    const body = parseInput(PartySessionTokenRequest, ctx.body)
    const entity = ctx.entity
    if (body.party_type === 'payee') findPayee(entity, body.party_id)
    if (body.party_type === 'payer' && !entity.payers.has(body.party_id)) throw notFound(`payer ${body.party_id} not found`)
    return ok({data: await mintSessionToken(app, entity, body.party_id, body.party_type, PARTY_SCOPES[body.party_type])})
  })
}
