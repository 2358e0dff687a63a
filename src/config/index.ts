/**
 * The profile store: named profiles (API key, base URL, limits) in one JSON file, mode 0600, in
 * PAYOPS_CONFIG_DIR or the user's config directory (created 0700 when payops creates it). Writes go through `conf`; the hot path that
 * only resolves a profile reads the same file directly, without loading conf.
 */
import {existsSync, mkdirSync, readFileSync} from 'node:fs'
import {isSymlink} from '../files.js'
import {LockBusyError, lockDirOf, lockExclusive} from '../lock.js'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {UsageError} from '../errors.js'
import type {WatchRule} from '../controls/rules.js'

export interface Limits {
  /** Maximum amount per movement, in minor units, per currency code. */
  max_amount?: Record<string, number>
  /** Maximum total moved per UTC day under the key (every command and `api` together), per currency code. */
  daily_max?: Record<string, number>
  /** The only destinations money may move to. */
  allowed_destinations?: string[]
  /**
   * Maker-checker: a movement (over the threshold in its currency, or any without one) is created
   * without auto-approval, and its creator may not approve it.
   */
  approval?: {policy: 'maker-checker'; threshold?: Record<string, number>}
}

export interface Profile {
  api_key?: string
  base_url?: string
  limits?: Limits
  /** Who uses this profile, written into every audit record (`profiles set NAME operator-name ...`). */
  operator_name?: string
  /** What `payops watch` checks (`profiles set NAME watch RULE ARGS...`). */
  watch?: WatchRule[]
  /** The proxy every request of this profile goes through, above HTTPS_PROXY/HTTP_PROXY (`profiles set NAME proxy URL`). */
  proxy?: string
  /** PEM certificates TLS trusts besides the bundled roots: a TLS-inspecting proxy's CA (`profiles set NAME ca-file FILE`). */
  ca_file?: string
  /** The team store this profile's controls live in: a PostgreSQL URL (`profiles set NAME team URL`). */
  team_database_url?: string
  created_at?: string
}

export interface ProfileFile {
  active?: string
  profiles: Record<string, Profile>
}

export const CONFIG_FILE = 'config.json'
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.PAYOPS_CONFIG_DIR) return env.PAYOPS_CONFIG_DIR
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'payops')
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'payops')
}

export function validateProfileName(name: string): string {
  if (!NAME_RE.test(name)) {
    throw new UsageError(`Profile name "${name}" is not valid: use letters, digits, ".", "_" or "-" (up to 64 characters).`)
  }
  return name
}

export function keyMode(key: string | undefined): 'live' | 'test' | 'unknown' {
  if (!key) return 'unknown'
  if (key.startsWith('live_')) return 'live'
  if (key.startsWith('test_')) return 'test'
  return 'unknown'
}

/** The profile file holds API keys: it is never read or written through a symlink. */
function refuseSymlink(file: string): void {
  if (isSymlink(file)) throw new UsageError(`The profile file ${file} is a symbolic link; payops does not read or write API keys through one. Replace it with the file itself.`)
}

/** Reads the profile file without conf (fast path for every API command). */
export function readProfiles(dir: string): ProfileFile {
  const file = join(dir, CONFIG_FILE)
  refuseSymlink(file)
  if (!existsSync(file)) return {profiles: {}}
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<ProfileFile>
    return {active: parsed.active, profiles: parsed.profiles && typeof parsed.profiles === 'object' ? parsed.profiles : {}}
  } catch {
    throw new UsageError(`The profile file ${file} is not valid JSON; fix or remove it.`)
  }
}

type ConfStore = {get(key: string): unknown; set(key: string, value: unknown): void; delete(key: string): void; path: string}

/** Mutations of the profile file, through conf (atomic writes, file mode 0600). */
export class ProfileStore {
  readonly dir: string
  private conf?: ConfStore

  constructor(dir: string) {
    this.dir = dir
  }

  get path(): string {
    return join(this.dir, CONFIG_FILE)
  }

  private async store(): Promise<ConfStore> {
    if (!this.conf) {
      // conf would create the directory 0755; payops makes it 0700 (the umask can only narrow
      // that). A directory that already exists is the user's and is left as it is.
      mkdirSync(this.dir, {recursive: true, mode: 0o700})
      const {default: Conf} = await import('conf')
      this.conf = new Conf<ProfileFile>({
        cwd: this.dir,
        configName: 'config',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        defaults: {profiles: {}},
        projectName: 'payops',
      }) as unknown as ConfStore
    }
    return this.conf
  }

  read(): ProfileFile {
    return readProfiles(this.dir)
  }

  get(name: string): Profile | undefined {
    return this.read().profiles[name]
  }

  /** The profile a save would replace: refused (exit 2) unless `force`, so none is replaced silently. */
  replaceable(name: string, force: boolean | undefined): Profile | undefined {
    const existing = this.get(name)
    if (existing && !force) throw new UsageError(`Profile "${name}" already exists; use --force to replace it.`)
    return existing
  }

  require(name: string): Profile {
    const p = this.get(name)
    if (!p) throw new UsageError(`No profile named "${name}". See \`payops profiles list\`.`)
    return p
  }

  /**
   * Changes the profile file under its lock: `fn` gets the file as it is now (read after the lock
   * is taken) and changes it in place; the whole file is then written atomically. Writers side by
   * side (other payops processes or runs) each see the others' changes, none is lost; a lock that
   * cannot be taken fails loudly (exit 2) and writes nothing.
   */
  async change<T>(fn: (file: ProfileFile) => T): Promise<T> {
    const conf = await this.store()
    refuseSymlink(this.path)
    let release: () => Promise<void>
    try {
      release = await lockExclusive(this.path, {stale: 5000, attempts: 200, waitMs: 25})
    } catch (err) {
      if (err instanceof LockBusyError) throw new UsageError(`The profile file ${this.path} is locked by another payops process (${lockDirOf(this.path)}); nothing was changed. Try again.`)
      throw err
    }
    try {
      refuseSymlink(this.path)
      const file = this.read()
      const result = fn(file)
      conf.set('profiles', file.profiles)
      if (file.active === undefined) conf.delete('active')
      else conf.set('active', file.active)
      return result
    } finally {
      await release()
    }
  }

  async save(name: string, profile: Profile): Promise<void> {
    validateProfileName(name)
    await this.change((file) => void (file.profiles[name] = profile))
  }

  /** Changes one profile as it is now in the file (under the lock); resolves with the new profile. */
  async update(name: string, fn: (current: Profile) => Profile): Promise<Profile> {
    return this.change((file) => {
      const current = file.profiles[name]
      if (!current) throw new UsageError(`No profile named "${name}". See \`payops profiles list\`.`)
      return (file.profiles[name] = fn(current))
    })
  }

  async remove(name: string): Promise<void> {
    await this.change((file) => {
      if (!file.profiles[name]) throw new UsageError(`No profile named "${name}". See \`payops profiles list\`.`)
      delete file.profiles[name]
      if (file.active === name) file.active = undefined
    })
  }

  async use(name: string): Promise<void> {
    await this.change((file) => {
      if (!file.profiles[name]) throw new UsageError(`No profile named "${name}". See \`payops profiles list\`.`)
      file.active = name
    })
  }
}
