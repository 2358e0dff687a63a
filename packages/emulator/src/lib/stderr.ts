/** Where the emulator reports what its starter did not ask to hear elsewhere (internal errors, a state it could not save): the process's stderr. */
export const writeStderr = (line: string): void => {
  process.stderr.write(`${line}\n`)
}
