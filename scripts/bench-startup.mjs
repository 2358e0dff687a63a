// The start-up and install cases of `npm run bench` (scripts/bench.mjs): `payops --version` against
// `node -e ''`, a one-shot GET against a bare Node fetch, and a fresh clone's `npm ci`, each with
// its target and the machine's load. Public tools only: git, npm and Node's child_process.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {availableParallelism, loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {BIN, ROOT} from './measure.mjs'

/**
 * The cases, bound to the bench's helpers: `pair` (interleaved A/B runs), `record` (one figure
 * with its target), `api` (a request to the emulator), its work folder and clean environment.
 */
export function startupCases({pair, record, api, work, baseEnv}) {
  /** The machine's load (1-minute average) and its cores, printed beside the start-up figures. */
  const load = () => `load ${loadavg()[0].toFixed(2)} on ${availableParallelism()} cores`

  /**
   * Start-up, side by side (interleaved runs, the median of the pairs' ratios): `payops --version`
   * against `node -e ''`, and a one-shot GET (`subaccounts get ID -o json`) against a bare Node
   * script that makes the same GET with Node's own fetch and prints the body.
   */
  async function startup(emu, cliEnv) {
    const version = await pair([process.execPath, [BIN, '--version']], [process.execPath, ['-e', '']])
    record("payops --version vs node -e ''", version.ratio, '×', '≤ 1.10×', version.ratio <= 1.1, {payops_ms: version.a_ms, node_ms: version.b_ms, load: loadavg()[0]})
    record("  payops --version, wall time (node -e '' beside it)", version.a_ms, `ms vs ${version.b_ms.toFixed(0)} ms, ${load()}`, undefined, undefined)
    const sub = (await api(emu, 'POST', '/api/subaccounts', {name: 'Bench'})).data
    const bare = join(work, 'bare-fetch.mjs')
    writeFileSync(bare, "const r = await fetch(process.argv[2], {headers: {'x-api-key': process.env.PAYOPS_API_KEY}}); process.stdout.write(await r.text())\n")
    const get = await pair([process.execPath, [BIN, 'subaccounts', 'get', sub.id, '-o', 'json'], cliEnv], [process.execPath, [bare, `${emu.baseUrl}/api/subaccounts/${sub.id}`], cliEnv])
    record('subaccounts get -o json vs a bare Node fetch', get.ratio, '×', '≤ 1.05×', get.ratio <= 1.05, {payops_ms: get.a_ms, fetch_ms: get.b_ms, load: loadavg()[0]})
    record('  subaccounts get, wall time (the bare fetch beside it)', get.a_ms, `ms vs ${get.b_ms.toFixed(0)} ms, ${load()}`, undefined, undefined)
  }

  /**
   * The install of a fresh clone: `git clone` of the committed HEAD into a temporary folder, then
   * `npm ci` there, timed whole (package unpacking from npm's cache, install scripts, and the
   * `prepare` build), against one minute.
   */
  async function freshInstall() {
    const dir = mkdtempSync(join(tmpdir(), 'payops-bench-clone-'))
    try {
      const {execFileSync} = await import('node:child_process')
      execFileSync('git', ['clone', '--quiet', '--no-hardlinks', ROOT, dir], {stdio: 'ignore'})
      const before = loadavg()[0]
      const started = performance.now()
      await new Promise((resolve, reject) => {
        const child = spawn('npm', ['ci', '--no-audit', '--no-fund'], {cwd: dir, env: baseEnv, stdio: ['ignore', 'ignore', 'pipe']})
        let stderr = ''
        child.stderr.on('data', (d) => (stderr += d))
        child.on('error', reject)
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`npm ci exited with ${code}: ${stderr.slice(-400)}`))))
      })
      const seconds = (performance.now() - started) / 1000
      record('fresh clone: npm ci (install scripts and the prepare build)', seconds, 's', '≤ 60 s', seconds <= 60, {load_before: before, load_after: loadavg()[0]})
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }

  return {load, startup, freshInstall}
}
