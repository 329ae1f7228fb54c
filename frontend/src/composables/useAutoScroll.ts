import { nextTick, onMounted, watch } from "vue";
import type { Ref, WatchSource } from "vue";

/** Pure: is the scroll position close enough to the bottom to keep following new content? */
export function nearBottom(el: { scrollTop: number; scrollHeight: number; clientHeight: number }, slack = 80): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight <= slack;
}

/** Follow new content at the bottom unless the user scrolled up to read. */
export function useAutoScroll(container: Ref<HTMLElement | null>, source: WatchSource<unknown>): { toBottom: () => void } {
  let follow = true;
  const toBottom = () => {
    const el = container.value;
    if (el) el.scrollTop = el.scrollHeight;
  };
  onMounted(() => {
    container.value?.addEventListener("scroll", () => {
      if (container.value) follow = nearBottom(container.value);
    });
    toBottom();
  });
  // Scroll in the next animation frame, not right after Vue's patch: reading scrollHeight forces
  // a synchronous layout, and doing it inside every pushed batch made each batch's script (and
  // the pusher's blocking run_js) wait for it (~1.5 ms each in a trace at 500 tok/s). The frame
  // lays out once anyway, and rAF callbacks run before that frame paints, so the new text and
  // the scroll still show together. Several batches in one frame cost one scroll.
  let scheduled = false;
  const scrollSoon = () => {
    if (scheduled) return;
    scheduled = true;
    const run = () => {
      scheduled = false;
      if (follow) toBottom();
    };
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(run);
    else void nextTick(run);
  };
  watch(source, () => {
    if (follow) scrollSoon();
  }, { flush: "post" });
  return { toBottom };
}
