/**
 * The completer's parts alone: its tables against the commands (so a renamed flag or argument
 * cannot silently stop completing), the names book's kinds, and the protocol's text.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ARG_VALUES, Completer, FLAG_VALUES, MAX_OFFERED, formatCompletion, type Source} from '../../src/completion/complete.js'
import {loadSpec} from '../../src/completion/spec.js'
import {NameBook, readNamesOf, readRecentNames} from '../../src/config/names.js'
import {SETTING_KEYS} from '../../src/config/settings.js'
import {ROOT, tempDir} from '../support/index.js'

const spec = loadSpec(ROOT)

describe('completion tables', () => {
  it('name only commands, arguments and flags that exist', () => {
    for (const key of Object.keys(ARG_VALUES)) {
      const [id, arg] = key.split(' ')
      expect(spec.commands.get(id)?.args.map((a) => a.name), key).toContain(arg)
    }
    for (const key of Object.keys(FLAG_VALUES)) {
      const [id, flag] = key.split(' ')
      const commands = id === '*' ? [...spec.commands.values()] : [spec.commands.get(id)]
      expect(commands.some((c) => c?.flags.some((f) => `--${f.name}` === flag && f.takesValue)), key).toBe(true)
    }
  })

  it('offer every setting of `profiles set`', () => {
    const completer = new Completer(spec, {values: () => []})
    expect(completer.complete(['profiles', 'set', 'p', '']).candidates.map((c) => c.value)).toEqual([...SETTING_KEYS])
  })

  it('ask the source with the profile and key the line names, wherever the flags stand', () => {
    const asked: unknown[] = []
    const source: Source = {values: (kind, line) => (asked.push([kind, {...line}]), [{value: 'x1'}])}
    const completer = new Completer(spec, source)
    completer.complete(['-pprod', 'moves', 'approve', ''])
    completer.complete(['moves', 'approve', '--api-key=k', '-p', 'q', ''])
    completer.complete(['-o', 'json', '--profile', 'r', 'webhooks', 'get', ''])
    expect(asked).toEqual([
      ['move', {profile: 'prod'}],
      ['move', {apiKey: 'k', profile: 'q'}],
      ['webhook', {profile: 'r'}],
    ])
  })
})

describe('the offer', () => {
  it('stops at MAX_OFFERED values, and describes only the values offered', () => {
    let described = 0
    const values = Array.from({length: MAX_OFFERED + 50}, (_, i) => ({value: `id${i}`, description: () => `move ${++described}`}))
    const completer = new Completer(spec, {values: () => values})
    const all = completer.complete(['moves', 'approve', ''])
    expect(all.candidates).toHaveLength(MAX_OFFERED)
    expect(described).toBe(MAX_OFFERED)
    // What is typed narrows the list before the limit applies.
    expect(completer.complete(['moves', 'approve', `id${MAX_OFFERED + 49}`]).candidates.map((c) => c.value)).toEqual([`id${MAX_OFFERED + 49}`])
  })
})

describe('the protocol', () => {
  it('is one VALUE<TAB>DESCRIPTION line per candidate, then :DIRECTIVE', () => {
    expect(formatCompletion({candidates: [{value: 'a', description: 'first'}, {value: 'b'}], directive: 4})).toBe('a\tfirst\nb\n:4\n')
    expect(formatCompletion({candidates: [], directive: 0})).toBe(':0\n')
  })
})

describe('the names book', () => {
  it('keeps what kind each id is, reads the older file of plain names, and keeps a kind a later caller does not know', () => {
    const dir = tempDir()
    try {
      writeFileSync(join(dir.path, 'names.json'), JSON.stringify({old: 'Legacy', bad: [1, 2]}))
      const book = new NameBook(dir.path)
      expect(book.get('old')).toBe('Legacy')
      expect(book.get('bad')).toBeUndefined()
      book.remember('s1', 'Payroll', 'subaccount')
      book.remember('t1', 'Main USD', 'treasury-account')
      book.remember('s2', 'Vendors', 'subaccount')
      book.remember('s1', 'Payroll')
      book.save()
      const again = new NameBook(dir.path)
      // Newest first; the plain name of `old` has no kind.
      expect(again.ofKind('subaccount')).toEqual([
        {id: 's2', name: 'Vendors'},
        {id: 's1', name: 'Payroll'},
      ])
      expect(again.ofKind('treasury-account')).toEqual([{id: 't1', name: 'Main USD'}])
      // names.json moved into the control store once, and was renamed aside.
      expect(readRecentNames(dir.path)).toEqual(expect.arrayContaining([{id: 'old', name: 'Legacy'}, {id: 's1', name: 'Payroll', kind: 'subaccount'}]))
      expect(existsSync(join(dir.path, 'names.json'))).toBe(false)
      expect(JSON.parse(readFileSync(join(dir.path, 'names.json.moved'), 'utf8'))).toEqual({old: 'Legacy', bad: [1, 2]})
    } finally {
      dir.cleanup()
    }
  })

  it('names ids by lookup, whatever their age in the book (an id past the newest 5,000 too)', () => {
    const dir = tempDir()
    try {
      const book = new NameBook(dir.path)
      book.remember('oldest', 'Payroll', 'subaccount')
      for (let i = 0; i < 5001; i++) book.remember(`s${i}`, `Sub ${i}`, 'subaccount')
      book.save()
      expect(readRecentNames(dir.path).some((e) => e.id === 'oldest')).toBe(false)
      const named = readNamesOf(dir.path, ['oldest', 's5000', 'unknown', 'oldest'])
      expect([...named.values()].sort((a, b) => a.id.localeCompare(b.id))).toEqual([
        {id: 'oldest', name: 'Payroll', kind: 'subaccount'},
        {id: 's5000', name: 'Sub 5000', kind: 'subaccount'},
      ])
      expect(readNamesOf(dir.path, []).size).toBe(0)
      expect(readNamesOf(join(dir.path, 'nowhere'), ['oldest']).size).toBe(0)
    } finally {
      dir.cleanup()
    }
  })

  it('a name learnt before the book is read is the one shown, with the kind the book knew; one already held is not written again', () => {
    const dir = tempDir()
    try {
      const first = new NameBook(dir.path)
      first.remember('s1', 'Payroll', 'subaccount')
      expect(first.save()).toBe(1)
      const book = new NameBook(dir.path)
      // Learnt without reading the book (a one-shot read), then read: the newer name, the known kind.
      book.remember('s1', 'Payroll EU')
      expect(book.get('s1')).toBe('Payroll EU')
      expect(book.ofKind('subaccount')).toEqual([{id: 's1', name: 'Payroll EU'}])
      expect(book.save()).toBe(1)
      const same = new NameBook(dir.path)
      same.remember('s1', 'Payroll EU')
      expect(same.save()).toBe(0)
    } finally {
      dir.cleanup()
    }
  })
})
