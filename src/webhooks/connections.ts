/**
 * Who may hold a connection to the listener: at most `max` open at once and at most `perAddress`
 * from one remote address. A connection is either waiting (it has not sent a complete request yet:
 * a new, slow or stalled client, or an idle keep-alive) or answering (its request arrived whole and
 * the answer is on its way, which takes a moment). At a limit, the connection that has been waiting
 * longest is closed to make room for the new one, so sockets that connect and stall cannot keep a
 * sender that sends its request at once from being served; only when every connection in the way
 * is answering is the new one closed at once. Nothing here reads a request: the HTTP server's
 * header and request timeouts close the stalled ones that nobody pushes out.
 */
import type {Socket} from 'node:net'

interface Slot {
  readonly socket: Socket
  readonly address: string
  answering: boolean
}

/** Slots in the order they started waiting (a Map keeps insertion order): the first waiting one is the oldest. */
class Line {
  private readonly slots = new Map<Slot, true>()
  get size(): number {
    return this.slots.size
  }
  add(s: Slot): void {
    this.slots.delete(s)
    this.slots.set(s, true)
  }
  delete(s: Slot): void {
    this.slots.delete(s)
  }
  oldestWaiting(): Slot | undefined {
    for (const s of this.slots.keys()) if (!s.answering) return s
    return undefined
  }
}

export class ConnectionSlots {
  private readonly all = new Line()
  private readonly byAddress = new Map<string, Line>()
  /** Raw and TLS sockets alike, to their slot (a TLS socket is found by its peer's address and port). */
  private readonly slotOf = new WeakMap<object, Slot>()
  private readonly byPeer = new Map<string, Slot>()

  constructor(
    readonly max: number,
    readonly perAddress: number,
    /** Called once for each connection closed by a limit (pushed out, or refused at once). */
    private readonly onClosed: () => void,
  ) {}

  get open(): number {
    return this.all.size
  }

  /** Takes a new connection in, making room or closing it at once. Returns whether it was kept. */
  admit(socket: Socket): boolean {
    const address = socket.remoteAddress
    if (address === undefined || socket.destroyed) {
      socket.destroy()
      return false
    }
    const mine = this.byAddress.get(address)
    if (!this.makeRoom(mine, this.perAddress) || !this.makeRoom(this.all, this.max)) {
      this.onClosed()
      socket.destroy()
      return false
    }
    const slot: Slot = {socket, address, answering: false}
    const peer = `${address}|${socket.remotePort}`
    this.slotOf.set(socket, slot)
    this.byPeer.set(peer, slot)
    this.all.add(slot)
    let line = mine
    if (!line) this.byAddress.set(address, (line = new Line()))
    line.add(slot)
    socket.once('close', () => {
      if (this.byPeer.get(peer) === slot) this.byPeer.delete(peer)
      this.release(slot)
    })
    return true
  }

  /** The request on this socket (raw or TLS) arrived whole: it is not pushed out while answered. */
  answering(socket: Socket): void {
    const slot = this.find(socket)
    if (slot) slot.answering = true
  }

  /** The answer went out: the connection waits for its next request, as the newest waiting. */
  answered(socket: Socket): void {
    const slot = this.find(socket)
    if (!slot || !slot.answering) return
    slot.answering = false
    if (slot.socket.destroyed) return
    this.all.add(slot)
    this.byAddress.get(slot.address)?.add(slot)
  }

  /** The connection is being closed for another reason (a 408 or 400 on its way): it no longer counts, nor is it pushed out (and counted) again. */
  closing(socket: Socket): void {
    const slot = this.find(socket)
    if (slot) this.release(slot)
  }

  private find(socket: Socket): Slot | undefined {
    let slot = this.slotOf.get(socket)
    if (!slot && socket.remoteAddress !== undefined) {
      slot = this.byPeer.get(`${socket.remoteAddress}|${socket.remotePort}`)
      if (slot) this.slotOf.set(socket, slot)
    }
    return slot
  }

  /** Below `limit` in `line`, pushing out its longest-waiting connections; false when they are all answering. */
  private makeRoom(line: Line | undefined, limit: number): boolean {
    while (line && line.size >= limit) {
      const victim = line.oldestWaiting()
      if (!victim) return false
      this.release(victim)
      this.onClosed()
      victim.socket.destroy()
    }
    return true
  }

  private release(slot: Slot): void {
    this.all.delete(slot)
    const line = this.byAddress.get(slot.address)
    if (!line) return
    line.delete(slot)
    if (line.size === 0) this.byAddress.delete(slot.address)
  }
}
