/**
 * One step of an account transfer, wherever it is taken from: the API (create, approve), async
 * initiation, the control API's advance, and the emulator's clock (scheduler.ts). Settling books
 * the transfer's bank lines: a debit on the source, a credit on the destination (converted with
 * the indicative rate when the currencies differ), dated by the bank feed (bank-feed.ts).
 */
import {afterSettlement, lineDate} from '../bank-feed/bank-feed.js'
import {scheduleDay, utcDay} from '../clock/clock.js'
import {convertMinor} from '../store/fx.js'
import type {AccountTransferRecord, Entity, Store, TransferStatus} from '../store/index.js'

/** Books the bank lines of a settled transfer. */
export function bookSettlement(store: Store, entity: Entity, t: AccountTransferRecord): void {
  const from = entity.treasuryAccounts.get(t.from_account_id)
  const to = entity.treasuryAccounts.get(t.to_account_id)
  const date = lineDate(entity, t, utcDay(store.nowMs()))
  if (from) {
    store.treasury.addBankTransaction(entity, from.id, {
      amount_in_minor_units: t.amount_in_minor_units,
      currency_code: from.currency_code,
      description: 'ACCOUNT TRANSFER OUT',
      receiver_info: to?.label,
      direction: 'debit',
      transaction_date: date,
      transfer_id: t.id,
    })
  }
  if (to) {
    const amount = to.currency_code === t.currency_code ? t.amount_in_minor_units : convertMinor(t.amount_in_minor_units, t.currency_code, to.currency_code).destinationMinor
    store.treasury.addBankTransaction(entity, to.id, {
      amount_in_minor_units: amount,
      currency_code: to.currency_code,
      description: 'ACCOUNT TRANSFER IN',
      sender_info: from?.label,
      direction: 'credit',
      transaction_date: date,
      transfer_id: t.id,
    })
  }
  afterSettlement(store, entity, t, from, date)
}

/** Moves a transfer to `status`; settling books its bank lines. */
export function stepTransfer(store: Store, entity: Entity, t: AccountTransferRecord, status: TransferStatus): void {
  store.transfers.setStatus(entity, t, status)
  if (status === 'settled') bookSettlement(store, entity, t)
}

/**
 * True when an approved transfer waits for its send day: its `scheduled_date` is after today in
 * the schedule timezone. It stays `approved` (queued for initiation) until the clock reaches it.
 */
export function waitsForSendDay(store: Store, t: Pick<AccountTransferRecord, 'scheduled_date'>): boolean {
  return t.scheduled_date !== null && t.scheduled_date > scheduleDay(store.nowMs())
}
