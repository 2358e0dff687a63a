/** @centrapay/swift-parser ships no types: the one call payops makes. */
declare module '@centrapay/swift-parser' {
  const parser: {parse(opts: {type: 'mt940' | 'mt942'; data: string; validate?: boolean}): unknown[]}
  export default parser
}
