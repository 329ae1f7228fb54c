import { mount } from "@vue/test-utils";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defineComponent, h, nextTick, ref } from "vue";
import { useAutoScroll } from "@/composables/useAutoScroll";

describe("auto-scroll", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("scrolls once per animation frame, not inside every update", async () => {
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal("requestAnimationFrame", (cb: FrameRequestCallback) => frames.push(cb));
    const size = ref(0);
    const Host = defineComponent({
      setup() {
        const el = ref<HTMLElement | null>(null);
        useAutoScroll(el, () => size.value);
        return () => h("div", { ref: el }, String(size.value));
      },
    });
    const wrapper = mount(Host, { attachTo: document.body });
    const el = wrapper.element as HTMLElement;
    let reads = 0;
    Object.defineProperty(el, "scrollHeight", { get: () => (reads++, 1000 + size.value) });
    for (let i = 1; i <= 3; i++) {
      size.value = i;
      await nextTick();
    }
    expect(reads).toBe(0); // no forced layout while the batches were applied
    expect(frames).toHaveLength(1);
    frames.shift()?.(0);
    expect(el.scrollTop).toBeGreaterThan(0);
    expect(reads).toBe(1);
    wrapper.unmount();
  });
});
