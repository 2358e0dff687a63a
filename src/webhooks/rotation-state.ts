/**
 * What `webhooks rotate-secret` remembers between runs, so that a rotation interrupted after the
 * twin endpoint was created is resumed (the twin reused) instead of creating a second twin. One
 * small JSON file in the config dir, keyed by base URL and old endpoint id; no secrets in it.
 */
import {randomUUID} from 'node:crypto'
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

export const ROTATIONS_FILE = 'webhook-rotations.json'

export interface PendingRotation {
  base_url: string
  old_id: string
  new_id: string
  created_at: string
}

export class RotationState {
  private readonly file: string
  constructor(private readonly dir: string) {
    this.file = join(dir, ROTATIONS_FILE)
  }

  read(): PendingRotation[] {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as {rotations?: unknown}
      return Array.isArray(parsed.rotations) ? (parsed.rotations as PendingRotation[]).filter((r) => r && typeof r.old_id === 'string' && typeof r.new_id === 'string') : []
    } catch {
      return []
    }
  }

  find(baseUrl: string, oldId: string): PendingRotation | undefined {
    return this.read().find((r) => r.base_url === baseUrl && r.old_id === oldId)
  }

  save(rotation: PendingRotation): void {
    this.write([...this.read().filter((r) => !(r.base_url === rotation.base_url && r.old_id === rotation.old_id)), rotation])
  }

  remove(baseUrl: string, oldId: string): void {
    this.write(this.read().filter((r) => !(r.base_url === baseUrl && r.old_id === oldId)))
  }

  private write(rotations: PendingRotation[]): void {
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    // A fresh name, created exclusively: a link planted at a temporary name is never written through.
    const tmp = `${this.file}.${randomUUID()}.tmp`
    writeFileSync(tmp, JSON.stringify({rotations}, null, 2) + '\n', {mode: 0o600, flag: 'wx'})
    renameSync(tmp, this.file)
  }
}
