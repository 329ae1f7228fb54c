import { mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import BranchSwitcher from "@/components/chat/BranchSwitcher.vue";
import MessageEditor from "@/components/chat/MessageEditor.vue";
import { ApiError } from "@/api/transport";
import { message, setup, summary, turn } from "./helpers";

describe("branch switcher", () => {
  it("shows the position, steps to the neighbours by button and arrow key, and stops at the ends", async () => {
    setActivePinia(createPinia());
    const w = mount(BranchSwitcher, { props: { siblings: [3, 7, 9], index: 1 } });
    expect(w.get("[data-testid=branch-position]").text()).toBe("2/3");
    expect(w.get("[data-testid=branch-switcher]").attributes("aria-label")).toBe("Version 2 of 3");
    expect(w.get("[data-testid=branch-previous]").attributes("aria-label")).toBe("Previous version");
    await w.get("[data-testid=branch-previous]").trigger("click");
    await w.get("[data-testid=branch-next]").trigger("click");
    await w.get("[data-testid=branch-switcher]").trigger("keydown", { key: "ArrowLeft" });
    expect(w.emitted("switch")).toEqual([[3], [9], [3]]);

    await w.setProps({ index: 2 });
    expect(w.get("[data-testid=branch-next]").attributes("disabled")).toBeDefined();
    await w.get("[data-testid=branch-switcher]").trigger("keydown", { key: "ArrowRight" });
    expect(w.emitted("switch")).toHaveLength(3);
    await w.setProps({ disabled: true });
    await w.get("[data-testid=branch-previous]").trigger("click");
    expect(w.emitted("switch")).toHaveLength(3);
  });
});

describe("message editor", () => {
  it("Enter sends the edited text, Shift+Enter does not, Escape cancels", async () => {
    setActivePinia(createPinia());
    const w = mount(MessageEditor, { props: { text: "old text" }, attachTo: document.body });
    const area = w.get("[data-testid=message-editor-input]");
    expect(document.activeElement).toBe(area.element);
    await area.setValue("new text");
    await area.trigger("keydown", { key: "Enter", shiftKey: true });
    expect(w.emitted("save")).toBeUndefined();
    await area.trigger("keydown", { key: "Enter" });
    expect(w.emitted("save")).toEqual([["new text"]]);
    await area.setValue("   ");
    await area.trigger("keydown", { key: "Enter" });
    expect(w.emitted("save")).toHaveLength(1);
    await area.trigger("keydown", { key: "Escape" });
    expect(w.emitted("cancel")).toHaveLength(1);
    w.unmount();
  });
});

describe("chats store: branches", () => {
  const path = [message(1, "user", "q1"), message(2, "assistant", "a1"), message(3, "user", "q2"), message(4, "assistant", "a2")];

  async function opened() {
    const ctx = setup();
    ctx.fake.on("chats.get", ({ chat_id }) => ({ chat: summary(chat_id), messages: path, has_more: false, viewing: null }));
    await ctx.chats.loadHistory("c1");
    return ctx;
  }

  it("edit asks chat.edit and shows the path up to the edited message while the new turn streams", async () => {
    const { chats, fake } = await opened();
    fake.on("chat.edit", ({ chat_id }) => ({ chat_id, turn_id: "t9" }));
    expect(await chats.edit("c1", 3, "q2 edited", null)).toBe(true);
    expect(fake.callsTo("chat.edit")).toEqual([{ chat_id: "c1", cursor: 3, text: "q2 edited", model: null }]);
    const t = turn("c1", "t9");
    chats.applyBatch([t.started("q2 edited"), t.delta("new answer")]);
    chats.flushNow();
    const shown = chats.entries("c1");
    expect(shown.map((e) => (e.kind === "user" ? e.text : e.kind))).toEqual(["q1", "assistant", "q2 edited", "assistant"]);
  });

  it("regenerate shows no second copy of the question, and a refused request restores the path", async () => {
    const { chats, fake } = await opened();
    fake.on("chat.regenerate", ({ chat_id }) => ({ chat_id, turn_id: "t9" }));
    expect(await chats.regenerate("c1", 4, null)).toBe(true);
    const t = turn("c1", "t9");
    chats.applyBatch([t.started("q2"), t.delta("again")]);
    chats.flushNow();
    expect(chats.entries("c1").map((e) => (e.kind === "user" ? e.text : e.kind))).toEqual(["q1", "assistant", "q2", "assistant"]);
    chats.applyBatch([t.failed()]);

    fake.on("chat.regenerate", () => {
      throw new ApiError("chat.regenerate", "busy", "This chat is running a turn.");
    });
    const before = chats.runtime("c1").history;
    chats.runtime("c1").live = null;
    expect(await chats.regenerate("c1", 2, null)).toBe(false);
    expect(chats.runtime("c1").history).toBe(before);
    expect(chats.runtime("c1").error?.code).toBe("busy");
  });

  it("switchBranch shows the path chats.switch_branch answers with", async () => {
    const { chats, fake } = await opened();
    const other = [path[0], path[1], message(5, "user", "other q", { siblings: [3, 5], sibling_index: 1 })];
    fake.on("chats.switch_branch", ({ chat_id }) => ({ chat: summary(chat_id), messages: other, has_more: false, viewing: null }));
    expect(await chats.switchBranch("c1", 5)).toBe(true);
    expect(fake.callsTo("chats.switch_branch")).toEqual([{ chat_id: "c1", cursor: 5 }]);
    expect(chats.runtime("c1").history).toEqual(other);
  });

  it("a search hit on another version shows it without switching; Make current and Back to current", async () => {
    const { chats, fake } = await opened();
    const other = [path[0], path[1], message(5, "user", "hit", { siblings: [3, 5], sibling_index: 1 })];
    const viewing = { cursor: 5, index: 2, count: 2, leaf: 5 };
    fake.on("chats.get", ({ chat_id, through }) =>
      through === 5
        ? { chat: summary(chat_id), messages: other, has_more: false, viewing }
        : { chat: summary(chat_id), messages: path, has_more: false, viewing: null },
    );
    fake.on("chats.switch_branch", ({ chat_id }) => ({ chat: summary(chat_id), messages: other, has_more: false, viewing: null }));
    expect(await chats.reveal("c1", 5)).toBe(true);
    expect(fake.callsTo("chats.switch_branch")).toEqual([]); // the stored current version stays
    expect(fake.callsTo("chats.get").at(-1)).toEqual({ chat_id: "c1", through: 5, limit: 200 });
    expect(chats.runtime("c1").viewing).toEqual(viewing);
    expect(chats.runtime("c1").history).toEqual(other);

    await chats.backToCurrent("c1");
    expect(chats.runtime("c1").viewing).toBeNull();
    expect(chats.runtime("c1").history).toEqual(path);
    expect(await chats.reveal("c1", 1)).toBe(true); // on the shown path: nothing asked
    expect(fake.callsTo("chats.get")).toHaveLength(3);

    expect(await chats.reveal("c1", 5)).toBe(true);
    expect(await chats.makeCurrent("c1")).toBe(true);
    expect(fake.callsTo("chats.switch_branch")).toEqual([{ chat_id: "c1", cursor: 5 }]);
    expect(chats.runtime("c1").viewing).toBeNull();
  });
});

describe("message list actions", () => {
  it("offers edit on user messages and regenerate on answers, and the editor sends the edit", async () => {
    const { default: MessageList } = await import("@/components/chat/MessageList.vue");
    const { buildTranscript } = await import("@/model/transcript");
    setActivePinia(createPinia());
    const history = [
      message(1, "user", "q1"),
      message(2, "assistant", "a1", { siblings: [2, 5], sibling_index: 0 }),
    ];
    const w = mount(MessageList, {
      props: { entries: buildTranscript(history), hasMore: false, loading: false, branches: { 2: { siblings: [2, 5], index: 0 } } },
      attachTo: document.body,
    });
    expect(w.findAll("[data-testid=edit-message]")).toHaveLength(1);
    expect(w.findAll("[data-testid=regenerate-message]")).toHaveLength(1);
    expect(w.get("[data-testid=branch-position]").text()).toBe("1/2");
    await w.get("[data-testid=branch-next]").trigger("click");
    expect(w.emitted("switchBranch")).toEqual([[5]]);
    await w.get("[data-testid=regenerate-message]").trigger("click");
    expect(w.emitted("regenerate")).toEqual([[2]]);
    await w.get("[data-testid=edit-message]").trigger("click");
    const area = w.get("[data-testid=message-editor-input]");
    expect((area.element as HTMLTextAreaElement).value).toBe("q1");
    await area.setValue("q1 again");
    await area.trigger("keydown", { key: "Enter" });
    expect(w.emitted("edit")).toEqual([[1, "q1 again"]]);
    expect(w.findAll("[data-testid=message-editor]")).toHaveLength(0);
    await w.setProps({ busy: true });
    expect(w.get("[data-testid=regenerate-message]").attributes("disabled")).toBeDefined();
    w.unmount();
  });
});
