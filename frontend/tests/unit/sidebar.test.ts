import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "@/api/transport";
import AppSidebar from "@/components/sidebar/AppSidebar.vue";
import { summary } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

async function sidebar() {
  const ctx = await mountWith(AppSidebar);
  ctx.chats.applyBatch([
    { type: "session_updated", chat_id: "c1", title: "First", updated_at: "2026-11-30T09:01:00Z" },
    { type: "session_updated", chat_id: "c2", title: "Second", updated_at: "2026-11-30T09:02:00Z" },
  ]);
  await tick();
  return ctx;
}

describe("sidebar", () => {
  it("lists chats newest first and follows session_updated titles", async () => {
    const { wrapper, chats } = await sidebar();
    const titles = () => wrapper.findAll('[data-testid="chat-list-item"]').map((li) => li.get(".chat-title").text());
    expect(titles()).toEqual(["Second", "First"]);
    chats.applyBatch([{ type: "session_updated", chat_id: "c1", title: "Automatic title", updated_at: "2026-11-30T09:03:00Z" }]);
    await tick();
    expect(titles()).toEqual(["Automatic title", "Second"]);
  });

  it("filters the list by title", async () => {
    const { wrapper } = await sidebar();
    await wrapper.get('[data-testid="chat-search"]').setValue("sec");
    expect(wrapper.findAll('[data-testid="chat-list-item"]').map((li) => li.get(".chat-title").text())).toEqual(["Second"]);
    await wrapper.get('[data-testid="chat-search"]').setValue("zzz");
    await new Promise((r) => setTimeout(r, 300)); // the message search answers first
    expect(wrapper.text()).toContain("No matching chats.");
  });

  it("says 'No matching chats.' only when the messages have no hits either (issue 41)", async () => {
    const { wrapper, fake } = await sidebar();
    const hit = { chat_id: "c1", chat_title: "First", cursor: 3, role: "user" as const, created_at: "2026-11-30T09:00:00Z", parts: [{ text: "weather", hit: true }], version: null, attachment: null };
    fake.on("chats.search", ({ query }) => ({ groups: query === "weather" ? [{ chat_id: "c1", chat_title: "First", hit_count: 1, more: false, hits: [hit] }] : [] }));
    await wrapper.get('[data-testid="chat-search"]').setValue("weather");
    await new Promise((r) => setTimeout(r, 300));
    expect(wrapper.findAll('[data-testid="search-hit"]')).toHaveLength(1);
    expect(wrapper.find('[data-testid="no-matching-chats"]').exists()).toBe(false);
    await wrapper.get('[data-testid="chat-search"]').setValue("nothing at all");
    await new Promise((r) => setTimeout(r, 300));
    expect(wrapper.find('[data-testid="no-matching-chats"]').exists()).toBe(true);
  });

  it("renames inline: Enter commits through chats.rename, Esc cancels", async () => {
    const { wrapper, fake } = await sidebar();
    fake.on("chats.rename", ({ chat_id, title }) => ({ ...summary(chat_id, title), updated_at: "2026-11-30T09:05:00Z" }));
    const first = () => wrapper.findAll('[data-testid="chat-list-item"]')[1];
    await first().get('[data-testid="chat-rename"]').trigger("click");
    const input = first().get('[data-testid="chat-rename-input"]');
    expect(document.activeElement).toBe(input.element);
    await input.setValue("  Renamed chat ");
    await input.trigger("keydown", { key: "Enter" });
    await tick();
    expect(fake.callsTo("chats.rename")).toEqual([{ chat_id: "c1", title: "Renamed chat" }]);
    expect(wrapper.text()).toContain("Renamed chat");

    const top = wrapper.findAll('[data-testid="chat-list-item"]')[0];
    await top.get('[data-testid="chat-rename"]').trigger("click");
    await top.get('[data-testid="chat-rename-input"]').setValue("nope");
    await top.get('[data-testid="chat-rename-input"]').trigger("keydown", { key: "Escape" });
    expect(fake.callsTo("chats.rename")).toHaveLength(1);
  });

  it("deletes only after confirmation", async () => {
    const { wrapper, fake } = await sidebar();
    fake.on("chats.delete", () => ({ ok: true }));
    await wrapper.findAll('[data-testid="chat-delete"]')[0].trigger("click");
    expect(document.querySelector('[data-testid="confirm-ok"]')).not.toBeNull();
    (document.querySelector('[data-testid="confirm-cancel"]') as HTMLElement).click();
    await tick();
    expect(fake.callsTo("chats.delete")).toEqual([]);
    expect(document.querySelector('[data-testid="confirm-ok"]')).toBeNull();

    await wrapper.findAll('[data-testid="chat-delete"]')[0].trigger("click");
    (document.querySelector('[data-testid="confirm-ok"]') as HTMLElement).click();
    await tick();
    expect(fake.callsTo("chats.delete")).toEqual([{ chat_id: "c2" }]);
    expect(wrapper.findAll('[data-testid="chat-list-item"]').map((li) => li.get(".chat-title").text())).toEqual(["First"]);
  });

  it("shows the backend's message when a running chat cannot be deleted", async () => {
    const { wrapper, fake } = await sidebar();
    fake.on("chats.delete", () => {
      throw new ApiError("chats.delete", "busy", "This chat is running a turn; stop it first.");
    });
    await wrapper.findAll('[data-testid="chat-delete"]')[0].trigger("click");
    (document.querySelector('[data-testid="confirm-ok"]') as HTMLElement).click();
    await tick();
    expect(wrapper.text()).toContain("This chat is running a turn; stop it first.");
    expect(wrapper.findAll('[data-testid="chat-list-item"]')).toHaveLength(2);
  });

  it("shows each chat's message count and last activity", async () => {
    const { wrapper, chats, fake } = await sidebar();
    const fresh = { ...summary("c1", "First", "2026-11-30T09:04:00Z"), message_count: 6, last_activity: new Date().toISOString() };
    fake.on("chats.list", () => ({ chats: [fresh], next_before: null }));
    await chats.loadList();
    await tick();
    const meta = wrapper.findAll('[data-testid="chat-meta"]').map((m) => m.text());
    expect(meta[0]).toBe("just now · 6 messages");
    expect(meta[1]).toMatch(/ago · No messages$|^\d{4}-\d{2}-\d{2} · No messages$/);
  });

  it("new chat creates one and opens it", async () => {
    const { wrapper, fake, router } = await sidebar();
    fake.on("chats.create", () => summary("c3", "New chat", "2026-11-30T09:09:00Z"));
    await wrapper.get('[data-testid="new-chat"]').trigger("click");
    await tick();
    expect(router.currentRoute.value.fullPath).toBe("/chat/c3");
    await wrapper.get('[data-testid="nav-settings"]').trigger("click");
    // Settings is its own chunk (lazy route): the navigation ends once it has arrived.
    await vi.waitFor(() => expect(router.currentRoute.value.name).toBe("settings"));
  });
});
