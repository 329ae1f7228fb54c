import { afterEach, describe, expect, it } from "vitest";
import type { AppEvent, InboxItem } from "@/api/generated";
import { FakeTransport } from "@/api/fake";
import { ApiError } from "@/api/transport";
import AnsweredElsewhere from "@/components/chat/AnsweredElsewhere.vue";
import AppSidebar from "@/components/sidebar/AppSidebar.vue";
import { translate } from "@/i18n";
import type { MessageKey, Params } from "@/i18n";
import { outcomeText } from "@/model/inbox";
import { useInboxStore } from "@/stores/inbox";
import InboxView from "@/views/InboxView.vue";
import { setup, turn } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

function item(id: string, extra: Partial<InboxItem> = {}): InboxItem {
  return {
    id, kind: "approval", chat_id: "c1", turn_id: "t1", task_id: null, who: "Report chat", origin: "chat", tool: "write_file",
    title: "Write a.txt", detail: "a.txt", argv: null,
    summary: { code: "write_file_new", params: { bytes: "5" }, exact: "/w/a.txt\nhello" },
    warnings: [], can_always: true, fields: [], created_at: "2026-11-30T09:00:00Z", status: "pending", answer: null,
    answered_by: null, resumable: false, ...extra,
  };
}

const changed = (pending: number, item_id: string, status: InboxItem["status"]): AppEvent => ({ type: "inbox_changed", pending, item_id, status });

describe("inbox wording", () => {
  const en = (key: MessageKey, params?: Params) => translate("en", key, params);
  const zh = (key: MessageKey, params?: Params) => translate("zh-CN", key, params);

  it("says what was answered and by which surface, in both languages", () => {
    const answered = item("a", { status: "answered", answer: "once", answered_by: "inbox" });
    expect(outcomeText(en, answered)).toBe("Allowed once — answered in the Inbox");
    expect(outcomeText(zh, answered)).toBe("已允许一次——已在收件箱中回答");
    expect(outcomeText(en, item("b", { status: "answered", answer: "deny", answered_by: "cli" }))).toBe("Denied — answered from the CLI");
    expect(outcomeText(en, item("c", { kind: "memory_review", status: "answered", answer: "once", answered_by: "chat" }))).toBe(
      "Accepted — answered in the chat",
    );
    expect(outcomeText(en, item("d", { kind: "elicitation", status: "answered", answer: "decline", answered_by: "api" }))).toBe(
      "Declined — answered by an API client",
    );
    expect(outcomeText(zh, item("e", { status: "expired", answered_by: "timeout" }))).toBe("已过期");
    expect(outcomeText(en, item("f"))).toBe("");
  });
});

describe("chat: an approval answered elsewhere", () => {
  it("closes the dialog's approval and says the Inbox answered it", () => {
    const { chats } = setup();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.approval("a1", "k1")]);
    expect(chats.runtime("c1").approvals).toHaveLength(1);
    chats.applyBatch([{ type: "approval_resolved", chat_id: "c1", turn_id: "t1", approval_id: "a1", decision: "once", answered_by: "inbox" }]);
    expect(chats.runtime("c1").approvals).toHaveLength(0);
    expect(chats.runtime("c1").closedElsewhere).toEqual({ tool: "exec", decision: "once", by: "inbox" });
    chats.applyBatch([t.approval("a2", "k2")]); // the next question replaces the note
    expect(chats.runtime("c1").closedElsewhere).toBeNull();
  });

  it("words the note by the surface that answered", async () => {
    const note = async (by: "chat" | "cli" | "quick_ask") =>
      (await mountWith(AnsweredElsewhere, { props: { note: { tool: "exec", decision: "deny", by } } })).wrapper.text();
    expect(await note("cli")).toContain("The approval for exec is closed: Denied — answered from the CLI.");
    expect(await note("chat")).toContain("Denied — answered in another window."); // not this window's own
    expect(await note("quick_ask")).toContain("answered in Quick Ask");
  });

  it("says nothing for this window's own answer or a stopped turn", () => {
    const fake = new FakeTransport().on("chat.approve", () => ({ ok: true }));
    const { chats } = setup(fake);
    const t = turn("c1", "t1");
    chats.applyBatch([t.started(), t.approval("a1", "k1"), t.approval("a2", "k2")]);
    void chats.answer("c1", "a1", "once");
    chats.applyBatch([{ type: "approval_resolved", chat_id: "c1", turn_id: "t1", approval_id: "a1", decision: "once", answered_by: "chat" }]);
    chats.applyBatch([{ type: "approval_resolved", chat_id: "c1", turn_id: "t1", approval_id: "a2", decision: "cancelled", answered_by: null }]);
    expect(chats.runtime("c1").closedElsewhere ?? null).toBeNull();
  });
});

describe("inbox view", () => {
  function backend(items: InboxItem[]) {
    const fake = new FakeTransport();
    fake.on("inbox.list", () => ({ items: [...items] }));
    return fake;
  }

  it("lists waiting items oldest first with who, what and since when; answers with via inbox", async () => {
    const items = [
      item("new", { who: "Quick Ask", origin: "quick_ask", created_at: "2026-11-30T09:05:00Z" }),
      item("old", { who: "Nightly task", origin: "task", created_at: "2026-11-30T08:00:00Z", can_always: false }),
    ];
    const fake = backend(items).on("inbox.answer", ({ id }) => {
      const i = items.findIndex((x) => x.id === id);
      items.splice(i, 1, { ...items[i], status: "answered", answer: "deny", answered_by: "inbox" });
      return { ok: true };
    });
    const { wrapper } = await mountWith(InboxView, { fake, path: "/inbox" });
    await tick();
    await tick();
    const cards = wrapper.findAll('[data-testid="inbox-item"]');
    expect(cards.map((c) => c.get('[data-testid="inbox-who"]').text())).toEqual(["Nightly task", "Quick Ask"]);
    expect(cards[0].get('[data-testid="inbox-origin"]').text()).toBe("Scheduled task");
    expect(cards[0].get('[data-testid="approval-summary"]').text()).toBe("Write 5 bytes to a new file:");
    expect(cards[0].get('[data-testid="approval-detail"]').text()).toBe("/w/a.txt\nhello");
    expect(cards[0].get('[data-testid="inbox-age"]').text()).toMatch(/^asked /);
    expect(cards[0].find('[data-testid="approval-always"]').exists()).toBe(false); // not offered
    expect(cards[1].find('[data-testid="approval-always"]').exists()).toBe(true);
    await cards[0].get('[data-testid="approval-deny"]').trigger("click");
    await tick();
    expect(fake.callsTo("inbox.answer")).toEqual([{ id: "old", decision: "deny", fields: {}, via: "inbox" }]);
    await tick();
    // It moved to "Answered", saying so; the keyboard goes on with the next waiting item.
    const answered = wrapper.get('[data-item-id="old"]');
    expect(answered.attributes("data-status")).toBe("answered");
    expect(answered.get('[data-testid="inbox-outcome"]').text()).toBe("Denied — answered in the Inbox");
    expect(document.activeElement).toBe(wrapper.get('[data-item-id="new"] [data-testid="approval-once"]').element);
  });

  it("a lost race says who answered first", async () => {
    const items = [item("a1")];
    const fake = backend(items).on("inbox.answer", () => {
      items.splice(0, 1, item("a1", { status: "answered", answer: "once", answered_by: "chat" }));
      throw new ApiError("inbox.answer", "conflict", "already answered");
    });
    const { wrapper } = await mountWith(InboxView, { fake, path: "/inbox" });
    await tick();
    await wrapper.get('[data-testid="approval-once"]').trigger("click");
    await tick();
    await tick();
    expect(wrapper.get('[data-testid="inbox-conflict"]').text()).toBe("Already answered elsewhere: Allowed once — answered in the chat.");
    expect(wrapper.get('[data-testid="inbox-outcome"]').text()).toBe("Allowed once — answered in the chat");
  });

  it("a form item sends its fields; a required one is asked for first", async () => {
    const form = item("f1", {
      kind: "elicitation", tool: "", title: "weather", detail: "Which city?", summary: null,
      fields: [{ name: "city", title: "City", type: "string", required: true, enum: null }],
    });
    const fake = backend([form]).on("inbox.answer", () => ({ ok: true }));
    const { wrapper } = await mountWith(InboxView, { fake, path: "/inbox" });
    await tick();
    await wrapper.get('[data-testid="inbox-submit"]').trigger("click");
    expect(wrapper.get('[data-testid="inbox-error"]').text()).toBe("Fill in City.");
    expect(fake.callsTo("inbox.answer")).toEqual([]);
    await wrapper.get('[data-testid="inbox-field-city"]').setValue("Paris");
    await wrapper.get('[data-testid="inbox-submit"]').trigger("click");
    await tick();
    expect(fake.callsTo("inbox.answer")).toEqual([{ id: "f1", decision: "once", fields: { city: "Paris" }, via: "inbox" }]);
  });
});

describe("inbox view opened on an item", () => {
  it("focuses its main answer and ignores answers for a moment: the key that opened it is not an answer", async () => {
    const fake = new FakeTransport();
    fake.on("inbox.list", () => ({ items: [item("a1")] })).on("inbox.answer", () => ({ ok: true }));
    const { wrapper } = await mountWith(InboxView, { fake, path: "/inbox?item=a1" });
    await tick();
    await tick();
    const once = wrapper.get('[data-item-id="a1"] [data-testid="approval-once"]');
    expect(document.activeElement).toBe(once.element);
    expect(wrapper.get('[data-item-id="a1"]').attributes("data-held")).toBe("true");
    await once.trigger("click"); // the opening Enter, delivered again to the page
    await tick();
    expect(fake.callsTo("inbox.answer")).toEqual([]);
    expect(document.activeElement).toBe(once.element); // still on the answer, not disabled
    await new Promise((resolve) => setTimeout(resolve, 650));
    await tick();
    expect(wrapper.get('[data-item-id="a1"]').attributes("data-held")).toBeUndefined();
    await once.trigger("click");
    await tick();
    expect(fake.callsTo("inbox.answer")).toEqual([{ id: "a1", decision: "once", fields: {}, via: "inbox" }]);
  });
});

describe("sidebar badge", () => {
  it("counts waiting items from inbox_changed and hides at zero", async () => {
    let items: InboxItem[] = [];
    const fake = new FakeTransport().on("inbox.list", () => ({ items: [...items] }));
    const { wrapper } = await mountWith(AppSidebar, { fake });
    const inbox = useInboxStore();
    expect(wrapper.find('[data-testid="inbox-badge"]').exists()).toBe(false);
    items = [item("a1"), item("a2"), item("a3")];
    inbox.applyBatch([changed(3, "a3", "pending")]);
    await tick();
    expect(wrapper.get('[data-testid="inbox-badge"]').text()).toBe("3");
    expect(wrapper.get('[data-testid="inbox-badge"]').attributes("aria-label")).toBe("3 waiting");
    items = [];
    inbox.applyBatch([changed(0, "a1", "answered")]);
    await tick();
    expect(wrapper.find('[data-testid="inbox-badge"]').exists()).toBe(false);
  });
});

describe("a question asked outside a turn (an MCP App's own tool call)", () => {
  it("is the chat's dialog only: no assistant entry that would wait forever", () => {
    const { chats } = setup();
    const outside = turn("c1", "");
    chats.applyBatch([outside.approval("a1", "app-1")]);
    expect(chats.runtime("c1").approvals.map((a) => a.approval_id)).toEqual(["a1"]);
    expect(chats.runtime("c1").live).toBeNull();
    chats.applyBatch([outside.resolved("a1", "once")]);
    expect(chats.runtime("c1").approvals).toEqual([]);
    expect(chats.runtime("c1").live).toBeNull();
  });
});
