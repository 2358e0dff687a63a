/** Whether an answer mode (drift.ts, strict.ts) is on now, and what the emulator started with (what a reset returns to). */
export class ModeSwitch {
  on: boolean
  constructor(readonly initial = false) {
    this.on = initial
  }

  reset(): void {
    this.on = this.initial
  }
}
