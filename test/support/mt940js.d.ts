/** mt940js (a test-only MT940 reader) ships no types. */
declare module 'mt940js' {
  export class Parser {
    parse(data: string): any[]
  }
}
