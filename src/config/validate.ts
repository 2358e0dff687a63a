import {isLoopbackHost} from '../net.js'
import {UsageError} from '../errors.js'
import {redactUrl} from '../api/redact.js'

/**
 * A base URL must be https://, or http:// to a loopback address (the emulator), with no query or
 * fragment: either would swallow the path of every request appended to it.
 */
export function validateBaseUrl(input: string): string {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new UsageError(`Base URL "${redactUrl(input)}" is not a valid URL.`)
  }
  if (url.search || url.hash || /[?#]/.test(input)) throw new UsageError(`Base URL "${redactUrl(input)}" has a query or fragment: give SCHEME://HOST[:PORT][/PATH].`)
  if (url.protocol === 'https:') return url.href.replace(/\/+$/, '')
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url.href.replace(/\/+$/, '')
  throw new UsageError(`Base URL "${redactUrl(input)}" must use https:// (http:// is allowed only to loopback).`)
}
