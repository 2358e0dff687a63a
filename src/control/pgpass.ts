/**
 * libpq's password file (`~/.pgpass`, or the file PGPASSFILE names): lines of
 * `hostname:port:database:username:password`, `*` matching anything, `\:` and `\\` escaped, read
 * only when the file is nobody else's (mode 0600 or stricter), as libpq reads it. The environment
 * is the command's (its host's), not necessarily the process's.
 */
import {readFileSync, statSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

export interface PgpassQuery {
  host: string
  port: number
  database: string
  user: string
}

/** The fields of one line (escapes undone), or undefined for a comment or a malformed line. */
function fields(line: string): string[] | undefined {
  if (!line.trim() || line.startsWith('#')) return undefined
  const out: string[] = []
  let cur = ''
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (c === '\\' && i + 1 < line.length) cur += line[++i]
    else if (c === ':' && out.length < 4) {
      out.push(cur)
      cur = ''
    } else cur += c
  }
  out.push(cur)
  return out.length === 5 ? out : undefined
}

export function pgpassFile(env: NodeJS.ProcessEnv): string {
  if (env.PGPASSFILE) return env.PGPASSFILE
  if (process.platform === 'win32') return join(env.APPDATA ?? homedir(), 'postgresql', 'pgpass.conf')
  return join(env.HOME || homedir(), '.pgpass')
}

/** The password of the first line that matches, or undefined (no file, a file others can read, no match). */
export function pgpassPassword(env: NodeJS.ProcessEnv, q: PgpassQuery): string | undefined {
  const file = pgpassFile(env)
  let text: string
  try {
    const st = statSync(file)
    if (!st.isFile()) return undefined
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) return undefined
    text = readFileSync(file, 'utf8')
  } catch {
    return undefined
  }
  const want = [q.host, String(q.port), q.database, q.user]
  for (const line of text.split(/\r?\n/)) {
    const f = fields(line)
    if (f && want.every((w, i) => f[i] === '*' || f[i] === w)) return f[4]
  }
  return undefined
}
