/**
 * The one rule for text from outside (src/output/safe.ts) and the human writers built on it: what
 * is escaped, what passes (our own line breaks and colour codes, and nothing a value can forge),
 * JSON kept exact, CSV cells guarded.
 */
import {PassThrough, Writable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {terminalPrompter} from '../../src/context/prompter.js'
import type {HostPrompter, IOStreams} from '../../src/context/host.js'
import {colorize, trustedPaint} from '../../src/output/color.js'
import {Output} from '../../src/output/index.js'
import {escapeControls, guardCsvCell, safeJson, terminalLine, terminalLines} from '../../src/output/safe.js'
import {terminalSpinner} from '../../src/output/spinner.js'

const ESC = '\u001b'

function sink() {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(chunk.toString())
      cb()
    },
  })
  return {stream, text: () => chunks.join('')}
}

describe('escapeControls', () => {
  it('escapes C0, DEL, C1, bidi controls, invisible format characters, separators and lone surrogates', () => {
    const cases: Array<[string, string]> = [
      ['\u0000\u0007\u0008\t\n\r\u001b', '\\x00\\x07\\x08\\x09\\x0a\\x0d\\x1b'],
      ['\u007f\u0085\u009b', '\\x7f\\x85\\x9b'],
      ['\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u061c', '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u061c'],
      ['a\u200bb\u200cc\u200dd\u200ee\u200ff\u00adg\ufeffh\u2060i', 'a\\u200bb\\u200cc\\u200dd\\u200ee\\u200ff\\xadg\\ufeffh\\u2060i'],
      ['\u2028\u2029', '\\u2028\\u2029'],
      ['x\ud800y\udfffz', 'x\\ud800y\\udfffz'],
      ['tag\u{e0001}\u{e0041}', 'tag\\u{e0001}\\u{e0041}'],
    ]
    for (const [raw, shown] of cases) expect(escapeControls(raw)).toBe(shown)
  })

  it('leaves printable text alone: accents, CJK, emoji (a surrogate pair), box drawing, backslashes', () => {
    const text = 'Café 東京 💸 ─ ✓ C:\\ops «x» ₹'
    expect(escapeControls(text)).toBe(text)
  })
})

describe('terminalLine and our own paint', () => {
  it('lets our colour codes through and escapes the same codes when they come with a value', () => {
    const p = trustedPaint(true)
    const value = `${ESC}[31mred${ESC}[8m hidden`
    const line = terminalLine(`${p.red('Error:')} ${value}`)
    expect(line).toBe(`${ESC}[31mError:${ESC}[39m \\x1b[31mred\\x1b[8m hidden`)
  })

  it('paints like chalk, nesting included', () => {
    const trusted = trustedPaint(true)
    const raw = colorize(true)
    for (const s of ['x', 'LIVE', '']) {
      expect(terminalLine(trusted.live(s))).toBe(raw.live(s))
      expect(terminalLine(trusted.status('failed'))).toBe(raw.status('failed'))
    }
    expect(terminalLine(trusted.bold(`a ${trusted.dim('b')} c`))).toBe(raw.bold(`a ${raw.dim('b')} c`))
    expect(trustedPaint(false).red('x')).toBe('x')
  })

  it('a value cannot forge our marker: only codes painted in this process pass', () => {
    const p = trustedPaint(true)
    const painted = p.red('x')
    const marker = painted.slice(0, painted.indexOf('['))
    expect(marker).not.toContain(ESC)
    // A guessed marker made of other private-use characters is not one.
    const guess = '\ue000'.repeat(marker.length)
    expect(terminalLine(`${guess}[8m`)).toBe(`${guess}[8m`)
  })

  it('an array is lines; in a string a newline is escaped, but for one at the end', () => {
    expect(terminalLines(['a', 'b\nc'])).toBe('a\nb\\x0ac\n')
    expect(terminalLines('one\n')).toBe('one\n')
    expect(terminalLines('one\ntwo')).toBe('one\\x0atwo\n')
    expect(terminalLines('one\r\n')).toBe('one\\x0d\n')
  })
})

describe('Output', () => {
  it('note, warn, writeLine and error escape what they are handed; JSON on stderr stays exact', async () => {
    const stdout = sink()
    const stderr = sink()
    const out = new Output({format: 'table', color: true, stdout: stdout.stream, stderr: stderr.stream})
    const name = `Payroll\r${ESC}[2K\u202e`
    out.note(`${out.paint.dim('Note:')} ${name}`)
    out.warn(name)
    out.error(`400: ${name}`)
    out.page({hasMore: true, nextCursor: `c${ESC}[2J`})
    await out.writeLine(`Moved to ${name}`)
    const shown = 'Payroll\\x0d\\x1b[2K\\u202e'
    expect(stderr.text()).toBe(
      [`${ESC}[2mNote:${ESC}[22m ${shown}`, `${ESC}[33mWarning:${ESC}[39m ${shown}`, `${ESC}[31mError:${ESC}[39m 400: ${shown}`, `${ESC}[2mMore items: --cursor c\\x1b[2J (or --all)${ESC}[22m`, ''].join('\n'),
    )
    expect(stdout.text()).toBe(`Moved to ${shown}\n`)
    const machine = sink()
    const json = new Output({format: 'json', color: false, stdout: sink().stream, stderr: machine.stream})
    json.error(`400: ${name}`, {message: name})
    json.outcome({id: name}, 'unused')
    const [line, error, outcome] = machine.text().trim().split('\n')
    expect(line).toBe(`Error: 400: ${shown}`)
    expect(JSON.parse(error).error.message).toBe(name)
    expect(error).not.toMatch(/[\r\u001b\u202e]/)
    expect(JSON.parse(outcome).outcome.id).toBe(name)
  })

  it('table headers from the server (a raw answer\'s keys) are escaped', async () => {
    const stdout = sink()
    const out = new Output({format: 'table', color: false, stdout: stdout.stream, stderr: sink().stream})
    await out.list([{[`k${ESC}[2J`]: `v${ESC}]0;t\u0007`}], [])
    expect(stdout.text()).toBe('K\\x1b[2J     \nv\\x1b]0;t\\x07\n')
  })
})

describe('safeJson', () => {
  it('writes DEL, C1, format characters and separators as JSON escapes; the data parses back exact', () => {
    const value = {name: `a${ESC}[2J\u007f\u009b\u202e\u200b\u2028\ufeff\u{e0001}\ud800 ok 💸`, n: [1, -2.5]}
    for (const indent of [undefined, 2]) {
      const text = safeJson(value, indent)
      expect(JSON.parse(text)).toEqual(value)
      expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u2028\u202e\ufeff]|\u{e0001}/u)
      expect(text).toContain('💸')
    }
    expect(safeJson({a: 1}, 2)).toBe('{\n  "a": 1\n}')
  })
})

describe('guardCsvCell', () => {
  it('prefixes a quote to a cell a spreadsheet would run as a formula', () => {
    for (const cell of ['=1+1', '+1+1', '-1+1', '@SUM(A1)', '\t=1', '\r=1', '=HYPERLINK("x")', '-', '+', '- 1', '-12.34 usd', '-1e3x']) expect(guardCsvCell(cell)).toBe(`'${cell}`)
  })

  it('keeps plain numbers and money cells as they are (negative amounts stay numbers)', () => {
    for (const cell of ['-12.34', '+5', '-0.5', '-.5', '1e3', '-1E-3', '-12.34 USD', '-1234 JPY', 'Payroll', '12=3', 'a@b', '', "'=already"]) expect(guardCsvCell(cell)).toBe(cell)
  })
})

describe('the spinner and the prompter', () => {
  it('the spinner escapes its text and the statuses it is given', () => {
    const s = sink()
    const spinner = terminalSpinner(s.stream, 10_000)
    spinner.start(`Waiting for ${ESC}]0;x\u0007`, `pending${ESC}[1A`)
    spinner.status(`approved\r${ESC}[2K`)
    spinner.stop(`settled\u202e`)
    const text = s.text().replaceAll('\r\u001b[2K', '')
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/)
    expect(text).toContain('Waiting for \\x1b]0;x\\x07... settled\\u202e\n')
  })

  it('the prompter shows questions and choices escaped and acts on the exact values', async () => {
    const seen: Array<{message: string; names?: string[]; values?: string[]}> = []
    const scripted: HostPrompter = {
      confirm: async (message) => (seen.push({message}), true),
      input: async (message) => (seen.push({message}), 'typed'),
      password: async (message) => (seen.push({message}), ''),
      select: async (message, choices) => {
        seen.push({message, names: choices.map((c) => c.name), values: choices.map((c) => c.value)})
        return choices.map((c) => c.value)
      },
    }
    const io: IOStreams = {stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), stdinIsTTY: true, stdoutIsTTY: true, stderrIsTTY: true, env: {}}
    const prompter = terminalPrompter(io, () => undefined, scripted)
    const value = `move:mv_${ESC}[2J`
    expect(await prompter.confirm(`Delete ${ESC}[8mold?`)).toBe(true)
    expect(await prompter.input(`Type\r${ESC}[2K 1.00:`)).toBe('typed')
    expect(await prompter.select!('Approve which?', [{value, name: `Move to Payroll\r${ESC}[2K\u202e`}])).toEqual([value])
    expect(seen).toEqual([
      {message: 'Delete \\x1b[8mold?'},
      {message: 'Type\\x0d\\x1b[2K 1.00:'},
      {message: 'Approve which?', names: ['Move to Payroll\\x0d\\x1b[2K\\u202e'], values: [value]},
    ])
  })
})
