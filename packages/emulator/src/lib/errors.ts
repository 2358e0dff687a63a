/**
 * The errors the emulator throws to whoever started it (never to an HTTP client: those are
 * {@link HttpError}s, lib/http-error.ts). Each carries the exit code a command that started the
 * emulator should end with: 2 for a refusal before anything listens (bad options, a state file
 * that is not a state), 1 for a state that could not be kept. The `payops-emulator` binary exits
 * with it; `payops emulator start` turns it into its own error of the same code and message.
 */
export class EmulatorError extends Error {
  readonly exitCode: 1 | 2
  constructor(message: string, exitCode: 1 | 2) {
    super(message)
    this.name = 'EmulatorError'
    this.exitCode = exitCode
  }
}

/** Bad options or files, refused before anything listens or loads: exit 2. */
export class UsageError extends EmulatorError {
  override name = 'UsageError'
  constructor(message: string) {
    super(message, 2)
  }
}

/** A state file that could not be saved after the emulator started: exit 1 when it stops. */
export class StateSaveError extends EmulatorError {
  override name = 'StateSaveError'
  constructor(message: string) {
    super(message, 1)
  }
}
