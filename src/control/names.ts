/**
 * The book of names in the control store. On one machine it is a table of controls.sqlite (read
 * and written synchronously: a table being drawn asks it for names). With a team store the team's
 * book is the store's, appended through `remember_names` with the role that logged in, and
 * controls.sqlite keeps this machine's copy of it (what shell completion reads, never reaching the
 * network): a command that reaches the API first gives the team what this machine learnt and
 * takes what the team learnt since it last looked, and at its end gives what it learnt itself.
 *
 * names.json, where an earlier payops kept the book, moves into controls.sqlite once on first use
 * and is renamed `names.json.moved` (kept, never read again).
 */
import type {CommandContext} from '../context/index.js'
import {sayTeamUnavailable} from './books.js'
import {StoreUnavailableError} from './errors.js'
import {entityOf, teamBinding} from './index.js'
import type {NameEntry} from './records-types.js'
import type {ControlStore} from './types.js'
import {withLocalNames} from './names-local.js'

/** How long a command's end waits for a team store to give it the names it learnt. */
const QUIET_CONNECT_MS = 2000

/** A command's share of a team store's book: the store, open from the first API call to the end of the command. */
export class TeamNames {
  private constructor(
    private readonly dir: string,
    private readonly store: ControlStore,
  ) {}

  /** Joins the team's book (undefined: no team store, or it cannot be reached, said once unless `quiet`). */
  static async open(ctx: CommandContext, merge: (entries: NameEntry[]) => void, quiet = false): Promise<TeamNames | undefined> {
    let store: ControlStore | undefined
    try {
      const binding = teamBinding(ctx)
      if (!binding) return undefined
      // At a command's end (quiet), a store that does not answer is not waited for long: the names wait for the next command.
      const {PgControlStore} = await import('./postgres.js')
      store = await PgControlStore.open({address: binding.address, env: ctx.io.env, entity: entityOf(ctx, 'The team store'), ...(quiet ? {connectTimeoutMs: QUIET_CONNECT_MS} : {})})
      const team = new TeamNames(ctx.configDir, store)
      merge(await team.exchange())
      return team
    } catch (err) {
      await store?.close()
      if (quiet) return undefined
      if (err instanceof StoreUnavailableError) sayTeamUnavailable(ctx, err)
      else ctx.out.warn(`The team's names are not shown: ${(err as Error).message}`)
      return undefined
    }
  }

  /** Gives the team what this machine learnt since it last did, and takes what the team learnt since this machine last looked. */
  private async exchange(): Promise<NameEntry[]> {
    const where = this.store.location
    const {at, mine} = withLocalNames(this.dir, (b) => {
      const at = b.sharedWith(where)
      return {at, mine: b.namesNow(at.pushed)}
    })!
    if (mine.entries.length) await this.store.records.rememberNames(mine.entries)
    const theirs = await this.store.records.names(at.pulled)
    withLocalNames(this.dir, (b) => {
      b.rememberNow(theirs.entries)
      // What was just taken from the team is not given back to it.
      b.setSharedWith(where, {pulled: theirs.last, pushed: theirs.entries.length ? b.lastNameSeq() : mine.last})
    })
    return theirs.entries
  }

  /** At the command's end: gives the team what this command learnt, and lets the store go. */
  async close(): Promise<void> {
    try {
      const where = this.store.location
      const {at, mine} = withLocalNames(this.dir, (b) => {
        const at = b.sharedWith(where)
        return {at, mine: b.namesNow(at.pushed)}
      })!
      if (mine.entries.length) {
        await this.store.records.rememberNames(mine.entries)
        withLocalNames(this.dir, (b) => b.setSharedWith(where, {pulled: at.pulled, pushed: mine.last}))
      }
    } finally {
      await this.store.close()
    }
  }
}
