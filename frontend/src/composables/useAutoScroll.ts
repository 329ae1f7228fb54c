import { nextTick, onBeforeUnmount, onMounted, ref, watch } from "vue";
import type { Ref, WatchSource } from "vue";

/** Pure: is the scroll position close enough to the bottom to keep following new content? */
export function nearBottom(el: { scrollTop: number; scrollHeight: number; clientHeight: number }, slack = 80): boolean {
  return el.scrollHeight - el.scrollTop - el.clientHeight <= slack;
}

export interface AutoScroll {
  toBottom: () => void;
  /** False while the user has scrolled up to read (the view offers "Jump to latest"). */
  following: Ref<boolean>;
  /** Follow again from now on (a message was sent, "Jump to latest" was pressed). */
  jump: () => void;
  /** Stop following: the view was moved to an older message on purpose (a search hit). */
  hold: () => void;
}

/** Follow new content at the bottom unless the user scrolled up to read. */
export function useAutoScroll(container: Ref<HTMLElement | null>, source: WatchSource<unknown>): AutoScroll {
  const following = ref(true);
  let lastTop = 0;
  const toBottom = () => {
    const el = container.value;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    lastTop = el.scrollTop;
  };
  // Only the user scrolling *up* stops following: a scroll event of our own jump to the bottom
  // can arrive after more content was laid out (no longer "near the bottom", yet not the user).
  const onScroll = () => {
    const el = container.value;
    if (!el) return;
    if (nearBottom(el)) following.value = true;
    else if (el.scrollTop < lastTop - 1) following.value = false;
    lastTop = el.scrollTop;
  };
  // Content can grow after the watched source stopped changing (Markdown of a reloaded answer
  // renders in a later frame, images load), and the pane can shrink (the composer grows, a
  // banner appears): either must not leave the followed tail out of view.
  let resized: ResizeObserver | null = null;
  onMounted(() => {
    const el = container.value;
    el?.addEventListener("scroll", onScroll);
    if (typeof ResizeObserver === "function" && el) {
      resized = new ResizeObserver(() => {
        if (following.value) scrollSoon();
      });
      resized.observe(el);
      if (el.firstElementChild) resized.observe(el.firstElementChild);
    }
    toBottom();
  });
  onBeforeUnmount(() => resized?.disconnect());
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
      if (following.value) toBottom();
    };
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(run);
    else void nextTick(run);
  };
  watch(source, () => {
    if (following.value) scrollSoon();
  }, { flush: "post" });
  const jump = () => {
    following.value = true;
    toBottom();
    scrollSoon(); // and once more after the content that triggered this has been laid out
  };
  const hold = () => {
    following.value = false;
    lastTop = container.value?.scrollTop ?? 0;
  };
  return { toBottom, following, jump, hold };
}
