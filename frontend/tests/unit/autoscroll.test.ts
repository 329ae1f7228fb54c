/* eslint-disable vue/one-component-per-file -- each case mounts its own small host */
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

  it("stops following only when the user scrolled up, not when the content shrank for a frame", async () => {
    let follow: ReturnType<typeof useAutoScroll> | null = null;
    const Host = defineComponent({
      setup() {
        const el = ref<HTMLElement | null>(null);
        follow = useAutoScroll(el, () => 0);
        return () => h("div", { ref: el }, "x");
      },
    });
    const wrapper = mount(Host, { attachTo: document.body });
    const el = wrapper.element as HTMLElement;
    Object.defineProperty(el, "scrollHeight", { get: () => 5000 });
    Object.defineProperty(el, "clientHeight", { get: () => 400 });
    follow!.jump();
    expect(el.scrollTop).toBe(5000);
    // The browser clamped the position while the finished turn was re-rendered; by the time the
    // scroll event arrives the content is tall again: not the user.
    el.scrollTop = 1200;
    el.dispatchEvent(new Event("scroll"));
    expect(follow!.following.value).toBe(true);
    follow!.jump();
    // The reader's wheel moves the list up: following stops ("Jump to latest" shows).
    el.dispatchEvent(new WheelEvent("wheel", { deltaY: -300 }));
    el.scrollTop = 4000;
    el.dispatchEvent(new Event("scroll"));
    expect(follow!.following.value).toBe(false);
    // Back at the bottom by any means: following again.
    el.scrollTop = 4600;
    el.dispatchEvent(new Event("scroll"));
    expect(follow!.following.value).toBe(true);
    await nextTick();
    wrapper.unmount();
  });

  it("checks a followed view again after it settles, when nothing reported the last growth", async () => {
    vi.useFakeTimers();
    vi.stubGlobal("requestAnimationFrame", () => 0); // frames never come: only the timers act
    let height = 300;
    const Host = defineComponent({
      setup() {
        const el = ref<HTMLElement | null>(null);
        useAutoScroll(el, () => 0);
        return () => h("div", { ref: el }, "x");
      },
    });
    const wrapper = mount(Host, { attachTo: document.body });
    const el = wrapper.element as HTMLElement;
    Object.defineProperty(el, "scrollHeight", { get: () => height });
    Object.defineProperty(el, "clientHeight", { get: () => 200 });
    height = 2000; // the re-mounted answer rendered later; no source change, no resize report
    await vi.advanceTimersByTimeAsync(1100);
    expect(el.scrollTop).toBe(2000);
    wrapper.unmount();
    vi.useRealTimers();
  });
});

