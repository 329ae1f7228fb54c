/** One-callback-per-frame scheduler: streamed text is painted once per animation frame. */
export type FrameScheduler = (cb: () => void) => void;

export const animationFrame: FrameScheduler = (cb) => {
  if (typeof requestAnimationFrame === "function") {
    requestAnimationFrame(() => cb());
  } else {
    setTimeout(cb, 16);
  }
};

/** Coalesces many `request()` calls into one `flush` per frame. */
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
