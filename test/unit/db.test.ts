/** The local database (src/db): the binding of this Node, schema versions, refusals. */
import {readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {DatabaseVersionError, openDatabase, type Schema} from '../../src/db/index.js'
import {tempDir} from '../support/env.js'

const notes: Schema = {
  purpose: 'notes',
  migrations: ['CREATE TABLE note (id INTEGER PRIMARY KEY, text TEXT NOT NULL)', 'ALTER TABLE note ADD COLUMN tag TEXT'],
}

describe('openDatabase', () => {
  it('creates the file, applies every migration once, and keeps the data across opens', () => {
    const dir = tempDir()
    const path = join(dir.path, 'notes.sqlite')
    const db = openDatabase(path, notes)
    expect(['node:sqlite', '@photostructure/sqlite']).toContain(db.binding)
    expect(db.binding).toBe(Number(process.versions.node.split('.')[0]) >= 22 ? 'node:sqlite' : '@photostructure/sqlite')
    db.prepare('INSERT INTO note (text, tag) VALUES (?, ?)').run('hello', 'a')
    db.close()
    const again = openDatabase(path, notes)
    expect(again.prepare('SELECT text, tag FROM note').all()).toEqual([{text: 'hello', tag: 'a'}])
    expect(again.prepare('SELECT purpose, version FROM payops_schema').get()).toEqual({purpose: 'notes', version: 2})
    expect(again.prepare('PRAGMA journal_mode').get()).toEqual({journal_mode: 'wal'})
    again.close()
  })

  it('upgrades a file of an older schema version in place', () => {
    const dir = tempDir()
    const path = join(dir.path, 'notes.sqlite')
    const v1 = openDatabase(path, {purpose: 'notes', migrations: notes.migrations.slice(0, 1)})
    v1.prepare('INSERT INTO note (text) VALUES (?)').run('old')
    v1.close()
    const v2 = openDatabase(path, notes)
    expect(v2.prepare('SELECT text, tag FROM note').all()).toEqual([{text: 'old', tag: null}])
    v2.close()
  })

  it('refuses a file of a newer payops, of another purpose, or not made by payops (one line, exit 2)', () => {
    const dir = tempDir()
    const path = join(dir.path, 'notes.sqlite')
    openDatabase(path, {purpose: 'notes', migrations: [...notes.migrations, 'CREATE TABLE extra (x)']}).close()
    expect(() => openDatabase(path, notes)).toThrow(/written by a newer payops \(notes schema 3; this one knows 2\)/)
    expect(() => openDatabase(path, {purpose: 'journal', migrations: ['CREATE TABLE j (x)']})).toThrow(/is a payops notes database, not a journal one/)
    const foreign = join(dir.path, 'foreign.sqlite')
    const f = openDatabase(foreign, {purpose: 'x', migrations: []})
    f.exec('DROP TABLE payops_schema; CREATE TABLE theirs (x); PRAGMA journal_mode = DELETE')
    f.close()
    const err = (() => {
      try {
        openDatabase(foreign, notes)
      } catch (e) {
        return e as DatabaseVersionError
      }
    })()
    expect(err).toBeInstanceOf(DatabaseVersionError)
    expect(err?.message).toMatch(/SQLite database that payops did not create/)
    expect(err?.exitCode).toBe(2)
    // Refused before anything was written: a rollback-journal file stays one (not switched to WAL).
    expect(readFileSync(foreign).subarray(18, 20)).toEqual(Buffer.from([1, 1]))
  })

  it('refuses a file that is not a database, and a symlink (to a database or not)', () => {
    const dir = tempDir()
    const text = join(dir.path, 'text.sqlite')
    writeFileSync(text, 'just some text, long enough to not be an empty database file at all.\n'.repeat(20))
    expect(() => openDatabase(text, notes)).toThrow(/is not a payops notes database/)
    const real = join(dir.path, 'real.sqlite')
    openDatabase(real, notes).close()
    const link = join(dir.path, 'link.sqlite')
    symlinkSync(real, link)
    expect(() => openDatabase(link, notes)).toThrow(/link\.sqlite is a symbolic link; payops does not open a state file through one/)
    symlinkSync(join(dir.path, 'nowhere'), join(dir.path, 'dangling.sqlite'))
    expect(() => openDatabase(join(dir.path, 'dangling.sqlite'), notes)).toThrow(/symbolic link/)
  })

  it('a transaction commits as one, and rolls back as one when it throws', () => {
    const dir = tempDir()
    const db = openDatabase(join(dir.path, 'n.sqlite'), notes)
    const insert = db.prepare('INSERT INTO note (text) VALUES (?)')
    db.transaction(() => {
      insert.run('a')
      insert.run('b')
    })
    expect(() =>
      db.transaction(() => {
        insert.run('c')
        throw new Error('stop')
      }),
    ).toThrow('stop')
    expect(db.prepare('SELECT text FROM note ORDER BY id').all().map((r) => r.text)).toEqual(['a', 'b'])
    expect([...db.prepare('SELECT text FROM note ORDER BY id').iterate()].length).toBe(2)
    db.close()
  })

  it('a new file is made readable by its owner only', () => {
    const dir = tempDir()
    const path = join(dir.path, 'private.sqlite')
    openDatabase(path, notes).close()
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it('create: false refuses a file that does not exist', () => {
    const dir = tempDir()
    expect(() => openDatabase(join(dir.path, 'none.sqlite'), notes, {create: false})).toThrow(/does not exist/)
  })
})

describe('openDatabase read-only', () => {
  it('reads a file of this purpose while another connection writes, and refuses one that is not up to date', () => {
    const dir = tempDir()
    const path = join(dir.path, 'n.sqlite')
    const writer = openDatabase(path, notes)
    writer.prepare('INSERT INTO note (text) VALUES (?)').run('one')
    writer.exec('BEGIN IMMEDIATE')
    writer.prepare('INSERT INTO note (text) VALUES (?)').run('two')
    // The writer holds its write lock: a read-only reader neither waits nor writes.
    const reader = openDatabase(path, notes, {readOnly: true})
    expect(reader.prepare('SELECT text FROM note').all()).toEqual([{text: 'one'}])
    writer.exec('COMMIT')
    expect(reader.prepare('SELECT COUNT(*) AS n FROM note').get()).toEqual({n: 2})
    expect(() => reader.prepare('INSERT INTO note (text) VALUES (?)').run('three')).toThrow(/readonly/i)
    reader.close()
    writer.close()
    expect(() => openDatabase(join(dir.path, 'none.sqlite'), notes, {readOnly: true})).toThrow(/does not exist/)
    expect(() => openDatabase(path, {purpose: 'notes', migrations: [...notes.migrations, 'CREATE TABLE x (y)']}, {readOnly: true})).toThrow(/is not at notes schema 3/)
  })
})

describe('integers', () => {
  it('are read exactly on every binding: numbers while safe, BigInts past 2^53 (never rounded)', () => {
    const dir = tempDir()
    const db = openDatabase(join(dir.path, 'big.sqlite'), {purpose: 'big', migrations: ['CREATE TABLE t (v INTEGER)']})
    db.prepare('INSERT INTO t (v) VALUES (?)').run(42)
    db.prepare('INSERT INTO t (v) VALUES (?)').run(9007199254740993n)
    db.prepare('INSERT INTO t (v) VALUES (?)').run(-9007199254740993n)
    expect(db.prepare('SELECT v FROM t ORDER BY rowid').all()).toEqual([{v: 42}, {v: 9007199254740993n}, {v: -9007199254740993n}])
    expect(db.prepare('SELECT SUM(v) AS s FROM t WHERE v > 0').get()).toEqual({s: 9007199254741035n})
    expect([...db.prepare('SELECT v FROM t ORDER BY rowid LIMIT 1').iterate()]).toEqual([{v: 42}])
    db.close()
  })
})
