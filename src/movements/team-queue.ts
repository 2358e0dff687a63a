/**
 * The team store's approval queue as this machine last read it (`team-queue.json` in the config
 * dir), for shell completion, which never reaches the network: every command that reads the
 * store's requests (the queue, a review, an approve, a held create) writes it, so that after a
 * decision a member's completion agrees with the store as of their last such command. Light: no
 * store code is loaded here.
 */
import {randomBytes} from 'node:crypto'
import {mkdirSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {keyIdOf} from '../api/redact.js'
import {readTail} from '../files.js'
import type {PendingItem} from './pending.js'

export const TEAM_QUEUE_FILE = 'team-queue.json'
/** A queue file larger than this is not one of payops's. */
const MAX_BYTES = 4 << 20

export interface TeamQueue {
  /** The key the queue is for (its id, never the key). */
  key_id: string | null
  read_at: string
  pending: PendingItem[]
  decided: string[]
}

/** Writes the queue read from the store (a fresh file renamed over the old one, 0600). Never fails the command. */
export function saveTeamQueue(configDir: string, apiKey: string | undefined, queue: {pending: PendingItem[]; decided: Set<string>}, now: number): void {
  try {
    mkdirSync(configDir, {recursive: true, mode: 0o700})
    const file = join(configDir, TEAM_QUEUE_FILE)
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`
    const data: TeamQueue = {key_id: keyIdOf(apiKey), read_at: new Date(now).toISOString(), pending: queue.pending, decided: [...queue.decided]}
    writeFileSync(tmp, JSON.stringify(data), {mode: 0o600, flag: 'wx'})
    renameSync(tmp, file)
  } catch {
    // Completion then reads an older queue, or none: the store stays the truth.
  }
}

/** The queue last read for this key, if any (never through a link; a damaged file is none). */
export function readTeamQueue(configDir: string, apiKey: string | undefined): TeamQueue | undefined {
  try {
    const tail = readTail(join(configDir, TEAM_QUEUE_FILE), MAX_BYTES)
    if (!tail || tail.cut) return undefined
    const q = JSON.parse(tail.text) as TeamQueue
    if (!q || q.key_id === null || q.key_id !== keyIdOf(apiKey) || !Array.isArray(q.pending) || !Array.isArray(q.decided)) return undefined
    return q
  } catch {
    return undefined
  }
}

/** The moves awaiting approval: the store's as last read, then this machine's own the store has not decided. */
export function mergeMoves(local: PendingItem[], queue: TeamQueue | undefined): PendingItem[] {
  if (!queue) return local
  const fromStore = queue.pending.filter((p) => p.kind === 'move')
  const decided = new Set(queue.decided)
  return [...fromStore, ...local.filter((m) => !decided.has(m.id) && !fromStore.some((p) => p.id === m.id))]
}
