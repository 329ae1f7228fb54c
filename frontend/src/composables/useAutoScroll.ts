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

/** How long after the user's input on the list a move up counts as theirs (smooth wheel
 * scrolling and kinetic touch scrolling go on for a while after the event). */
const INPUT_MS = 1000;

/** When a followed view is checked again after its last change (ms). */
const SETTLE_MS = [200, 1000];

const SCROLL_KEYS = new Set(["PageUp", "ArrowUp", "Home", " "]);

function isEditable(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
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
  // Only the user scrolling *up* stops following. A scroll event of our own jump to the bottom
  // can arrive after more content was laid out, and the browser clamps the position when the
  // content shrinks for a frame (a finished turn's stored messages replacing the live one) and
  // may report it only after the content grew back: both look like "moved up", neither is the
  // user. So a move up counts only right after the user's own input on the list (wheel, touch,
  // keys, a press on its scrollbar) — the cases a reader scrolls by.
  let touched = 0;
  let pressed = false;
  const noteInput = () => {
    touched = Date.now();
  };
  const onPress = () => {
    pressed = true;
    noteInput();
  };
  const onRelease = () => {
    if (pressed) noteInput(); // the drag's last scroll events come after the release
    pressed = false;
  };
  const byUser = () => pressed || Date.now() - touched < INPUT_MS;
  const onScroll = () => {
    const el = container.value;
    if (!el) return;
    if (nearBottom(el)) following.value = true;
    else if (el.scrollTop < lastTop - 1 && byUser()) following.value = false;
    lastTop = el.scrollTop;
  };
  const INPUTS = ["wheel", "touchmove"] as const;
  // Keys scroll the list last clicked without focusing it, so they arrive at the window.
  const onKey = (ev: KeyboardEvent) => {
    if (SCROLL_KEYS.has(ev.key) && !isEditable(ev.target)) noteInput();
  };
  // Content can grow after the watched source stopped changing (Markdown of a reloaded answer
  // renders in a later frame, images load), and the pane can shrink (the composer grows, a
  // banner appears): either must not leave the followed tail out of view.
  let resized: ResizeObserver | null = null;
  onMounted(() => {
    const el = container.value;
    el?.addEventListener("scroll", onScroll);
    for (const kind of INPUTS) el?.addEventListener(kind, noteInput, { passive: true });
    el?.addEventListener("pointerdown", onPress);
    window.addEventListener("pointerup", onRelease);
    window.addEventListener("keydown", onKey);
    if (typeof ResizeObserver === "function" && el) {
      resized = new ResizeObserver(follow);
      resized.observe(el);
      if (el.firstElementChild) resized.observe(el.firstElementChild);
    }
    toBottom();
    settleSoon();
  });
  onBeforeUnmount(() => {
    if (settleTimer !== null) clearTimeout(settleTimer);
    resized?.disconnect();
    window.removeEventListener("pointerup", onRelease);
    window.removeEventListener("keydown", onKey);
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
      if (following.value) toBottom();
    };
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(run);
    else void nextTick(run);
  };
  // And a check after things settle, on timers: a layout change that neither the source nor
  // the ResizeObserver reports (a finished turn's list re-mounted and its answer rendered in a
  // later frame, seen under load in CI) must not leave a followed view short of the end. One
  // timer, re-armed only when it fires (a streamed batch just notes the time).
  let changedAt = 0;
  let settleTimer: ReturnType<typeof setTimeout> | null = null;
  const settleCheck = () => {
    settleTimer = null;
    const since = Date.now() - changedAt;
    const el = container.value;
    if (since >= SETTLE_MS[0] && el && following.value && !nearBottom(el, 2)) toBottom();
    const next = SETTLE_MS.find((ms) => ms > since);
    if (next !== undefined) settleTimer = setTimeout(settleCheck, next - since);
  };
  const settleSoon = () => {
    changedAt = Date.now();
    if (settleTimer === null) settleTimer = setTimeout(settleCheck, SETTLE_MS[0]);
  };
  /** New content or a new size: keep the tail in view while following. */
  const follow = () => {
    if (!following.value) return;
    scrollSoon();
    settleSoon();
  };
  watch(source, follow, { flush: "post" });
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
