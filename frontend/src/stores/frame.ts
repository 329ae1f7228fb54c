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

/** Runs `cb` once the next frame has been painted (a task after its animation-frame callbacks). */
export function afterPaint(cb: () => void): void {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(() => setTimeout(cb, 0));
  else setTimeout(cb, 0);
}

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
