import { afterEach, describe, expect, it, vi } from "vitest";
import AppSidebar from "@/components/sidebar/AppSidebar.vue";
import { buildTranscript } from "@/model/transcript";
import { message } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
  vi.useRealTimers();
});

const HIT = {
  chat_id: "c1",
  chat_title: "Weather",
  cursor: 7,
  role: "assistant" as const,
  created_at: "2026-11-30T09:00:00Z",
  parts: [
    { text: "是的，今天", hit: false },
    { text: "天气很好", hit: true },
    { text: "<img src=x onerror=alert(1)>", hit: false },
  ],
};

describe("chat search", () => {
  it("searches all chats' text after a pause and renders highlighted snippets as text", async () => {
    vi.useFakeTimers();
    const { wrapper, fake, router } = await mountWith(AppSidebar);
    fake.on("chats.search", () => ({ hits: [HIT] }));
    await wrapper.get('[data-testid="chat-search"]').setValue("天气");
    await wrapper.get('[data-testid="chat-search"]').setValue("天气很好");
    expect(fake.callsTo("chats.search")).toEqual([]); // debounced
    await vi.advanceTimersByTimeAsync(250);
    expect(fake.callsTo("chats.search")).toEqual([{ query: "天气很好", limit: 30 }]);
    const hit = wrapper.get('[data-testid="search-hit"]');
    expect(hit.findAll("mark").map((m) => m.text())).toEqual(["天气很好"]);
    // Raw text stays text: no element is created from it.
    expect(hit.find("img").exists()).toBe(false);
    expect(hit.text()).toContain("<img src=x onerror=alert(1)>");
    vi.useRealTimers();
    (wrapper.get('[data-testid="search-hit"]').element as HTMLButtonElement).click();
    await tick();
    expect(router.currentRoute.value.fullPath).toBe("/chat/c1?at=7");
  });

  it("clearing the box clears the hits", async () => {
    vi.useFakeTimers();
    const { wrapper, fake } = await mountWith(AppSidebar);
    fake.on("chats.search", () => ({ hits: [HIT] }));
    await wrapper.get('[data-testid="chat-search"]').setValue("report");
    await vi.advanceTimersByTimeAsync(250);
    expect(wrapper.findAll('[data-testid="search-hit"]')).toHaveLength(1);
    await wrapper.get('[data-testid="chat-search"]').setValue("");
    expect(wrapper.find('[data-testid="search-hits"]').exists()).toBe(false);
  });

  it("transcript entries know which stored messages they show", () => {
    const entries = buildTranscript([
      message(1, "user", "q"),
      message(2, "assistant", "", { tool_calls: [{ id: "x", name: "list_dir", arguments: "{}" }] }),
      message(3, "tool", "out", { tool_call_id: "x", name: "list_dir" }),
      message(4, "assistant", "a"),
    ]);
    expect(entries.map((e) => e.cursors)).toEqual([[1], [2, 3, 4]]);
  });
});
