/**
 * One step of a payin, wherever it is taken from: the control API's advance and the emulator's
 * clock (scheduler.ts). Becoming `initiated` assigns the end-to-end id; `settled` emits
 * payin.settled and `failed` payin.failed.
 */
import type {AppContext} from '../app.js'
import {endToEndId} from '../store/seed-parties.js'
import type {Entity, PayinRecord, PayinStatusValue} from '../store/index.js'

export function stepPayin(app: Pick<AppContext, 'store' | 'events'>, entity: Entity, payin: PayinRecord, next: PayinStatusValue): void {
  if (next === 'initiated' && payin.payment_method.end_to_end_id === null) {
    payin.payment_method.end_to_end_id = endToEndId(payin.payment_method.routing_number)
  }
  app.store.payins.setStatus(entity, payin, next)
  if (next === 'settled') app.events.emit(entity.id, 'payin.settled', {payin_id: payin.id})
  if (next === 'failed') app.events.emit(entity.id, 'payin.failed', {payin_id: payin.id})
}
