/**
 * One of payops' own commands, run by oclif's Command without oclif's Config.
 *
 * oclif's `Config#runCommand` loads the root plugin and every plugin it names, then finds the
 * command, runs the `prerun` hooks, the command (`Command.run`, which hands the Config to the
 * command) and the `postrun` hooks. For a line that names one of payops' own commands (see
 * entry.ts), none of that is needed: the build wrote the command's file beside its id
 * (dist/command-table.json), payops declares no `prerun`, `postrun` or `preparse` hook (the build
 * refuses one: it would be skipped here), and a command asks its config for its name, version, bin
 * and scoped environment only. So the command's class is imported and run with the small config
 * below: oclif's Config, Plugin and their dependencies are neither loaded nor parsed.
 *
 * What oclif's Command does with its config, and what it gets here:
 * - `bin`, `userAgent`: the debug logger's name and the `http-call` user agent, as oclif's Config
 *   makes them; `version`: payops' own (the API's User-Agent).
 * - `runHook`: no hook runs (oclif's answer for a hook nobody declared).
 * - `scopedEnvVar*`: `PAYOPS_*`, as oclif's Config spells them for bin `payops` (read from the
 *   run's environment).
 * - `topicSeparator`: ':' (the id is already known; oclif then takes argv as it is for its
 *   deprecation check, which payops' commands do not use).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {host} from './context/host.js'

interface PackageJson {
  name: string
  version: string
  oclif: {bin: string}
}

/** What oclif's Command asks of its config. */
export interface OwnConfig {
  root: string
  name: string
  version: string
  bin: string
  userAgent: string
  topicSeparator: ':'
  pjson: PackageJson
  runHook(event: string): Promise<{successes: []; failures: []}>
  scopedEnvVar(k: string): string | undefined
  scopedEnvVarKey(k: string): string
  scopedEnvVarKeys(k: string): string[]
  scopedEnvVarTrue(k: string): boolean
}

/** The config of payops at `root` (its package.json read once per process). */
export function ownConfig(root: string): OwnConfig {
  return (configs[root] ??= makeConfig(root))
}

const configs: Record<string, OwnConfig> = {}

function makeConfig(root: string): OwnConfig {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson
  const bin = pjson.oclif.bin
  // oclif's Config#scopedEnvVarKey: the bin and the key, `@` dropped, `-` and `/` as `_`, upper case.
  const key = (k: string) => [bin, k].map((p) => p.replaceAll('@', '').replaceAll(/[/-]/g, '_')).join('_').toUpperCase()
  const value = (k: string) => host().io.env[key(k)]
  return {
    root,
    name: pjson.name,
    version: pjson.version,
    bin,
    userAgent: `${pjson.name}/${pjson.version} ${process.platform}-${process.arch} node-${process.version}`,
    topicSeparator: ':',
    pjson,
    runHook: async () => ({successes: [], failures: []}),
    scopedEnvVar: value,
    scopedEnvVarKey: key,
    scopedEnvVarKeys: (k) => [key(k)],
    scopedEnvVarTrue: (k) => value(k) === '1' || value(k) === 'true',
  }
}

/** A command class as oclif's Command declares it (what this runner uses of it). */
interface CommandClass {
  id?: string
  new (argv: string[], config: OwnConfig): {_run(): Promise<unknown>}
}

/**
 * Runs payops' command `id`, whose built file is `file` (relative to `root`), on `argv` (the line
 * after the command's words): the command's own init, run, catch and finally, as oclif runs them.
 */
export async function runOwnCommand(id: string, file: string, argv: string[], root: string): Promise<void> {
  const {default: Cmd} = (await import(pathToFileURL(join(root, file)).href)) as {default: CommandClass}
  Cmd.id = id
  await new Cmd(argv, ownConfig(root))._run()
}
