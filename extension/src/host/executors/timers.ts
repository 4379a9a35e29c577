// Executes setTimer / cancelTimer. Timer ids come from the engine.

import type { Report } from "../protocol";
import type { Logger } from "../../log";

/** Node's setTimeout treats delays above this as 1 ms; longer timers are clamped to it. */
const MAX_DELAY_MS = 2_147_483_647;

export class Timers {
  private readonly pending = new Map<number, NodeJS.Timeout>();
  private disposed = false;

  constructor(
    private readonly report: Report,
    private readonly logger: Logger,
  ) {}

  setTimer(timer: number, afterMs: number): void {
    if (this.disposed) return;
    // Setting a timer id that is already pending replaces it: the engine asked for one
    // callback with that id, and two would break the "fires once" promise.
    this.cancelTimer(timer);
    let delay = Number.isFinite(afterMs) ? Math.max(0, afterMs) : 0;
    if (delay > MAX_DELAY_MS) {
      this.logger.warn(`Timer ${timer}: ${afterMs} ms is too long; clamped to ${MAX_DELAY_MS} ms.`);
      delay = MAX_DELAY_MS;
    }
    const handle = setTimeout(() => {
      this.pending.delete(timer);
      if (!this.disposed) this.report({ type: "timerFired", timer });
    }, delay);
    // A timer alone never keeps the adapter process alive.
    handle.unref();
    this.pending.set(timer, handle);
  }

  cancelTimer(timer: number): void {
    const handle = this.pending.get(timer);
    if (handle !== undefined) {
      clearTimeout(handle);
      this.pending.delete(timer);
    }
  }

  get size(): number {
    return this.pending.size;
  }

  dispose(): void {
    this.disposed = true;
    for (const handle of this.pending.values()) clearTimeout(handle);
    this.pending.clear();
  }
}
