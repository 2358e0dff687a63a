/** Run before every test file: what tempDir made is removed after the file, whatever happened. */
import {rmSync} from 'node:fs'
import {afterAll} from 'vitest'
import {made} from './env.js'

afterAll(() => {
  for (const p of made) rmSync(p, {recursive: true, force: true})
  made.clear()
})
