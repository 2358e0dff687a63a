/**
 * The operator's records kept in the control store beside the controls: reconciliation decisions
 * (`reconcile resolve`), the book of names, and `watch`'s alert state. The same interface in both
 * engines; with a team store every record is stamped with the database role that wrote it, and a
 * record is never changed: a later one (a new decision on a key, a new name for an id, an alert
 * cleared) is appended and the latest is where a thing stands.
 */

/** A decision on a reconciliation exception (the latest of its key is in force). */
export interface Resolution {
  key: string
  label: string
  note: string | null
  /** When it was decided (for one moved from books.sqlite, when it was decided there). */
  decided_at: string
  /** The profile it was decided under, on the machine that decided it. */
  profile: string | null
  /** Who recorded it: the database role (team store) or the local operator (SQLite). */
  decided_by: string
}

export type ResolutionInput = Omit<Resolution, 'decided_by'>

/** One entry of the book of names. */
export interface NameEntry {
  id: string
  name: string
  kind: string | null
}

/** The alert state of one condition, as `watch.sqlite` kept it (what moves into the store). */
export interface AlertRow {
  scope: string
  key: string
  rule: string
  def: string
  active: number
  fired_at: string
  cleared_at: string | null
  fired: number
}

export interface OperatorRecords {
  /** The decisions in force, one per key (the latest of each). */
  resolutions(): Promise<Resolution[]>
  /** The decision in force on a key, if any. */
  resolution(key: string): Promise<Resolution | undefined>
  /** Records a decision (a later one on the same key replaces it in force; the earlier stays on record). */
  resolve(r: ResolutionInput): Promise<Resolution>
  /** Moves decisions kept elsewhere (books.sqlite): one already on record (same key, label, note, time) is not recorded again. */
  moveResolutions(rs: readonly ResolutionInput[]): Promise<number>

  /** The names recorded after `after` (a position of the book; 0: all), oldest first, with the position of the last. */
  names(after?: number): Promise<{entries: NameEntry[]; last: number}>
  /** Records names (an entry the book already holds as it is is not recorded again). */
  rememberNames(entries: readonly NameEntry[]): Promise<void>

  /**
   * One cycle of one watch rule, in one transaction: the conditions now crossed that were not
   * active fire (returned, and recorded as active), the active ones no longer crossed clear. Two
   * watches of a team store never both fire the same alert.
   */
  alertCycle(scope: string, rule: string, def: string, crossed: readonly string[], at: string): Promise<string[]>
  /** Forgets the alerts of rules no longer watched under `scope` (a team store keeps them: other members watch other rules). */
  forgetAlerts(scope: string, defs: readonly string[]): Promise<void>
  /** Moves alert state kept elsewhere (watch.sqlite): an alert already active is not recorded again. */
  moveAlerts(rows: readonly AlertRow[]): Promise<number>
}
