import {mkdirSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ProfileStore} from '../../src/config/index.js'
import {tempDir} from '../support/env.js'

describe('config directory', () => {
  const root = tempDir('payops-cfgdir-').path
  afterAll(() => rmSync(root, {recursive: true, force: true}))

  it('is created 0700 (with any missing parents) when payops creates it', async () => {
    const dir = join(root, 'fresh', 'payops')
    await new ProfileStore(dir).save('sandbox', {base_url: 'http://127.0.0.1:4010'})
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(join(root, 'fresh')).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600)
  })

  it('leaves the mode of a directory the user made alone', async () => {
    const dir = join(root, 'mine')
    mkdirSync(dir, {mode: 0o750})
    await new ProfileStore(dir).save('sandbox', {base_url: 'http://127.0.0.1:4010'})
    expect(statSync(dir).mode & 0o777).toBe(0o750)
  })
})
