/** Session tokens: the emulator-wide key that signs them (the tokens themselves are not stored). */
import {randomBytes} from 'node:crypto'
import type {StoreCore} from './core.js'

export class TokensStore {
  private secret?: string

  constructor(private readonly core: StoreCore) {}

  /** The HS256 key that signs session tokens: random per emulator, kept in the state file. */
  signingSecret(): string {
    if (!this.secret) {
      this.secret = randomBytes(32).toString('hex')
      this.core.changed()
    }
    return this.secret
  }

  /** The key as saved (undefined until the first token), and restoring it from a state file. */
  saved(): string | undefined {
    return this.secret
  }

  restore(secret: string): void {
    this.secret = secret
  }
}
