/** A fault configuration from a starter's words: `--fault-rate`, `--fault-kinds` and `--seed`. */
import {UsageError} from '../lib/errors.js'
import {FAULT_KINDS, type FaultConfig, type FaultKind} from './transport.js'

/** The configuration `rate` (0 to 1), `kinds` (comma-separated) and `seed` name; undefined for none. */
export function faultOptions(rate: string | undefined, kinds: string, seed: number | undefined): FaultConfig | undefined {
  if (rate === undefined) return seed === undefined ? undefined : {seed}
  const r = Number(rate)
  if (!/^\d*\.?\d+$/.test(rate.trim()) || !(r >= 0 && r <= 1)) throw new UsageError(`--fault-rate "${rate}" must be a number from 0 to 1.`)
  const list = kinds.split(',').map((s) => s.trim()).filter(Boolean)
  const bad = list.find((k) => !(FAULT_KINDS as readonly string[]).includes(k))
  if (bad || list.length === 0) throw new UsageError(`--fault-kinds: unknown kind "${bad ?? ''}" (use ${FAULT_KINDS.join(', ')}).`)
  return {rate: r, kinds: list as FaultKind[], ...(seed === undefined ? {} : {seed})}
}
