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
  watch(source, async () => {
    if (!follow) return;
    await nextTick();
    toBottom();
  }, { flush: "post" });
  return { toBottom };
}
