/**
 * Coalescing scheduler for streamed text. Deltas of one delivered batch are applied together in
 * a microtask; Vue then patches the DOM once before the next paint. (Deferring to
 * requestAnimationFrame cost a whole extra frame of latency: the backend already batches events
 * every ~8 ms (app/desktop/pusher.py), so a second frame-level batch only added delay — see
 * bench/README.md.)
 */
export type FrameScheduler = (cb: () => void) => void;

export const afterBatch: FrameScheduler = (cb) => {
  queueMicrotask(cb);
};

/** Coalesces many `request()` calls into one `flush` per scheduled callback. */
export function createFrameBatcher(flush: () => void, schedule: () => FrameScheduler) {
  let scheduled = false;
  return {
    request(): void {
      if (scheduled) return;
      scheduled = true;
      schedule()(() => {
        scheduled = false;
        flush();
      });
    },
  };
}
