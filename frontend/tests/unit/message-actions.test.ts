// Message actions (issue 25 item 7): one row under each message with Copy (user messages too)
// and "Copied" feedback; New chat reuses an untouched empty chat; Ctrl+K focuses search.
import { afterEach, describe, expect, it, vi } from "vitest";
import AppSidebar from "@/components/sidebar/AppSidebar.vue";
import MessageList from "@/components/chat/MessageList.vue";
import { buildTranscript } from "@/model/transcript";
import { message, summary } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

function clipboard(): string[] {
  const written: string[] = [];
  Object.defineProperty(navigator, "clipboard", {
    configurable: true,
    value: { writeText: (text: string) => (written.push(text), Promise.resolve()) },
  });
  return written;
}

describe("the action row", () => {
  it("copies user messages and answers, says Copied, and holds no second copy button", async () => {
    const written = clipboard();
    const entries = buildTranscript([message(1, "user", "What is 2+2?"), message(2, "assistant", "It is **4**.")]);
    const branches = { 1: { siblings: [1], index: 0 }, 2: { siblings: [2], index: 0 } };
    const { wrapper } = await mountWith(MessageList, { props: { entries, hasMore: false, loading: false, branches } });
    const rows = wrapper.findAll('[data-testid="message-actions"]');
    expect(rows).toHaveLength(2);
    const copyUser = rows[0].get('[data-testid="copy-message"]');
    expect(rows[0].find('[data-testid="edit-message"]').exists()).toBe(true);
    expect(rows[1].find('[data-testid="regenerate-message"]').exists()).toBe(true);
    await copyUser.trigger("click");
    await tick();
    expect(written).toEqual(["What is 2+2?"]);
    expect(copyUser.text()).toContain("Copied");
    await rows[1].get('[data-testid="copy-message"]').trigger("click");
    await tick();
    expect(written).toEqual(["What is 2+2?", "It is **4**."]);
    expect(wrapper.findAll(".message-tools")).toHaveLength(0); // one row, not two
  });
});

describe("the sidebar", () => {
  it("New chat opens an untouched empty chat instead of making another", async () => {
    const ctx = await mountWith(AppSidebar);
    let created = 0;
    ctx.fake.on("chats.create", () => (created++, summary(`n${created}`, "", `2026-11-30T09:1${created}:00Z`)));
    ctx.chats.applyBatch([{ type: "session_updated", chat_id: "c1", title: "Busy one", updated_at: "2026-11-30T09:01:00Z" }]);
    await ctx.wrapper.get('[data-testid="new-chat"]').trigger("click");
    await vi.waitFor(() => expect(ctx.router.currentRoute.value.fullPath).toBe("/chat/n1"));
    await ctx.router.push("/chat/c1");
    await ctx.wrapper.get('[data-testid="new-chat"]').trigger("click");
    await vi.waitFor(() => expect(ctx.router.currentRoute.value.fullPath).toBe("/chat/n1"));
    expect(created).toBe(1);
    // Once it has a title (a message was sent), the next New chat makes a new one.
    ctx.chats.applyBatch([{ type: "session_updated", chat_id: "n1", title: "Hello", updated_at: "2026-11-30T09:20:00Z" }]);
    await ctx.wrapper.get('[data-testid="new-chat"]').trigger("click");
    await vi.waitFor(() => expect(ctx.router.currentRoute.value.fullPath).toBe("/chat/n2"));
    expect(created).toBe(2);
    ctx.wrapper.unmount(); // its window shortcuts go with it
  });

  it("Ctrl+K focuses chat search", async () => {
    const { wrapper } = await mountWith(AppSidebar);
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "k", ctrlKey: true, cancelable: true }));
    await tick();
    expect(document.activeElement).toBe(wrapper.get('[data-testid="chat-search"]').element);
  });
});
