/**
 * The seeded world: a main test entity, a second test entity (to prove entity scoping) and a live
 * entity, each with a USD main operating account and a few subaccounts. Keys are random per fresh
 * start; a reset re-seeds the data but keeps every key (and the entity ids they name).
 */
import {ENTITY_ROLES, Store, type EntityRole, type Mode} from './index.js'
import {seedParties} from './seed-parties.js'
import {seedTreasury} from './seed-treasury.js'

export interface EntitySeed {
  name: string
  mode: Mode
  account: {label: string; currency_code: string}
  subaccounts: string[]
}

export const SEED: Record<EntityRole, EntitySeed> = {
  test: {
    name: 'Acme Sandbox',
    mode: 'test',
    account: {label: 'Main operating account', currency_code: 'USD'},
    subaccounts: ['Operating', 'Payroll', 'Reserve'],
  },
  test_other: {
    name: 'Globex Sandbox',
    mode: 'test',
    account: {label: 'Main operating account', currency_code: 'USD'},
    subaccounts: ['Operating'],
  },
  live: {
    name: 'Acme Live',
    mode: 'live',
    account: {label: 'Main operating account', currency_code: 'USD'},
    subaccounts: ['Operating', 'Payroll'],
  },
}

/** Adds one seeded entity and its data (`id`: keep an existing entity's id). */
export function seedEntity(store: Store, role: EntityRole, id?: string): void {
  const seed = SEED[role]
  const entity = store.addEntity({role, name: seed.name, mode: seed.mode, id})
  const account = store.treasury.createAccount(entity, {label: seed.account.label, currency_code: seed.account.currency_code, simulated: seed.mode === 'test'})
  for (const name of seed.subaccounts) store.subaccounts.create(entity, {name, currency_code: account.currency_code})
  seedParties(store, entity, role, store.nowMs())
  seedTreasury(store, entity)
}

/** Fills an empty store with the seeded entities and their data; `entityIds` keeps existing ids. */
function seedEntities(store: Store, entityIds: Partial<Record<EntityRole, string>> = {}): void {
  for (const role of ENTITY_ROLES) seedEntity(store, role, entityIds[role])
}

/** A new store with the seeded data and one fresh full-access key per entity; `clockMs`: the clock starts there (`--clock`). */
export function createSeededStore(clockMs?: number): Store {
  const store = new Store()
  if (clockMs !== undefined) store.setClock(clockMs, true)
  seedEntities(store)
  for (const role of ENTITY_ROLES) store.issueKey(store.entityByRole(role)!)
  return store
}

/** Replaces all data with a fresh seed, keeping every API key working for the same entity. */
export function reseed(store: Store): void {
  const ids: Partial<Record<EntityRole, string>> = {}
  for (const e of store.entities.values()) ids[e.role] = e.id
  store.clearData()
  seedEntities(store, ids)
  for (const role of ENTITY_ROLES) {
    if (store.primaryKeys[role] === undefined) store.issueKey(store.entityByRole(role)!)
  }
}
