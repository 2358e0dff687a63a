import {isLoopbackHost} from '../net.js'
import {UsageError} from '../errors.js'

/** A base URL must be https://, or http:// to a loopback address (the emulator). */
export function validateBaseUrl(input: string): string {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw new UsageError(`Base URL "${input}" is not a valid URL.`)
  }
  if (url.protocol === 'https:') return url.href.replace(/\/+$/, '')
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url.href.replace(/\/+$/, '')
  throw new UsageError(`Base URL "${input}" must use https:// (http:// is allowed only to loopback).`)
}
