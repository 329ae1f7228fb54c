import { mount } from "@vue/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import AppToast, { TOAST_MS } from "@/components/common/AppToast.vue";
import { setup } from "./helpers";
import { FakeTransport } from "@/api/fake";

describe("toasts (issue 41 item 6)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    setup(new FakeTransport());
  });
  afterEach(() => vi.useRealTimers());

  it("go away by themselves after their time, counted again for a new message", async () => {
    const wrapper = mount(AppToast, { props: { message: "Only Skill .zip files", timeoutMs: TOAST_MS } });
    vi.advanceTimersByTime(TOAST_MS - 100);
    await wrapper.setProps({ message: "Another refusal" });
    vi.advanceTimersByTime(TOAST_MS - 100);
    expect(wrapper.emitted("dismiss")).toBeUndefined();
    vi.advanceTimersByTime(200);
    expect(wrapper.emitted("dismiss")).toHaveLength(1);
  });

  it("wait while the pointer is on them, and a notice without a time stays", async () => {
    const held = mount(AppToast, { props: { message: "Refused", timeoutMs: TOAST_MS } });
    await held.trigger("pointerenter");
    vi.advanceTimersByTime(TOAST_MS * 3);
    expect(held.emitted("dismiss")).toBeUndefined();
    await held.trigger("pointerleave");
    vi.advanceTimersByTime(TOAST_MS);
    expect(held.emitted("dismiss")).toHaveLength(1);

    const notice = mount(AppToast, { props: { message: "The settings file was damaged" } });
    vi.advanceTimersByTime(TOAST_MS * 10);
    expect(notice.emitted("dismiss")).toBeUndefined();
    await notice.find("button").trigger("click");
    expect(notice.emitted("dismiss")).toHaveLength(1);
  });

  it("sit below the dialogs' backdrop", async () => {
    const { readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const css = readFileSync(join(__dirname, "../../src/styles/main.css"), "utf-8");
    const z = (selector: string) => Number(new RegExp(`^\\${selector} \\{[^}]*z-index: (\\d+)`, "m").exec(css)?.[1]);
    expect(z(".toast")).toBeLessThan(z(".backdrop"));
  });
});
