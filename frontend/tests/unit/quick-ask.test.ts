import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { AppInfo } from "@/api/generated";
import App from "@/App.vue";
import { useAppStore } from "@/stores/app";
import { settingsView, summary, turn } from "./helpers";
import { mountWith, tick } from "./mount";

const INFO: AppInfo = {
  version: "0.1.0", platform: "linux", first_run: false, data_dir: "/d", workspace: "/w",
  keyring: { available: true, backend: "memory", message: "ok" }, notices: [], database_busy: false,
};

function backend(): FakeTransport & { setLanguage(l: "en" | "zh-CN"): void } {
  let language: "en" | "zh-CN" = "en";
  const fake = new FakeTransport()
    .on("app.info", () => INFO)
    .on("settings.get", () =>
      settingsView({ theme: "light", language, last_model: { provider_id: "p1", model: "m1" } }),
    )
    .on("chats.list", () => ({ chats: [], next_before: null }))
    .on("chats.create", () => summary("q1", "Quick"))
    .on("chats.get", ({ chat_id }) => ({ chat: summary(chat_id, "Quick"), messages: [], has_more: false, viewing: null }))
    .on("chat.send", () => ({ chat_id: "q1", turn_id: "t1" }))
    .on("chat.approve", () => ({ ok: true }))
    .on("desktop.quick_chat", () => ({ ok: true }))
    .on("desktop.quick_hide", () => ({ ok: true }))
    .on("desktop.open_in_main", () => ({ ok: true }))
    .on("providers.list", () => ({ providers: [] }))
    .on("models.list", () => ({ models: [], errors: [] }));
  return Object.assign(fake, { setLanguage: (l: "en" | "zh-CN") => (language = l) });
}

async function start(fake: FakeTransport, path: string) {
  const ctx = await mountWith(App, { fake, path });
  await useAppStore().start(fake);
  await tick();
  return ctx;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("Quick Ask window", () => {
  it("shows only the quick view, is filled when opened with text, and follows the language", async () => {
    const fake = backend();
    const { wrapper } = await start(fake, "/quick");
    expect(wrapper.find('[data-testid="quick-view"]').exists()).toBe(true);
    expect(wrapper.find(".layout").exists()).toBe(false); // no sidebar
    fake.setLanguage("zh-CN"); // changed in the main window while this one was hidden
    fake.emit([{ type: "desktop_command", action: "quick_opened", text: "hi", open_chat_id: null, open_item_id: null }]);
    await tick();
    await tick();
    const input = wrapper.get('[data-testid="composer-input"]').element as HTMLTextAreaElement;
    expect(input.value).toBe("hi");
    expect(document.activeElement).toBe(input);
    expect(wrapper.get('[data-testid="quick-new"]').text()).toBe("新问题");
  });

  it("runs a turn in a chat of its own, answers an approval inline, and continues in the main window", async () => {
    const fake = backend();
    const { wrapper } = await start(fake, "/quick");
    await wrapper.get('[data-testid="composer-input"]').setValue("List files");
    await wrapper.get("form").trigger("submit");
    await tick();
    expect(fake.callsTo("desktop.quick_chat")).toEqual([{ chat_id: "q1" }]);
    expect(fake.callsTo("chat.send")).toMatchObject([{ chat_id: "q1", text: "List files" }]);
    const t = turn("q1", "t1");
    fake.emit([t.started("List files"), t.tool("k1", "exec"), t.approval("a1", "k1")]);
    await tick();
    const approval = wrapper.get('[data-testid="quick-approval"]');
    expect(approval.text()).toContain("Run a command");
    await approval.get('[data-testid="approval-always"]').trigger("click");
    expect(fake.callsTo("chat.approve")).toEqual([{ approval_id: "a1", decision: "always", via: "quick_ask" }]);
    await tick();
    expect(wrapper.find('[data-testid="quick-approval"]').exists()).toBe(false);
    await wrapper.get('[data-testid="quick-continue"]').trigger("click");
    await tick();
    expect(fake.callsTo("desktop.open_in_main")).toEqual([{ chat_id: "q1" }]);
    expect(fake.callsTo("desktop.quick_chat").at(-1)).toEqual({ chat_id: null }); // next question starts fresh
  });

  it("starts a fresh question when opened with text after an earlier one (`--quick-ask TEXT`)", async () => {
    const fake = backend();
    const { wrapper } = await start(fake, "/quick");
    await wrapper.get('[data-testid="composer-input"]').setValue("First question");
    await wrapper.get("form").trigger("submit");
    await tick();
    fake.emit([turn("q1", "t1").started("First question")]);
    await tick();
    expect(wrapper.find('[data-testid="quick-continue"]').attributes("disabled")).toBeUndefined();
    fake.emit([{ type: "desktop_command", action: "quick_opened", text: "Second", open_chat_id: null, open_item_id: null }]);
    await tick();
    await tick();
    expect(fake.callsTo("desktop.quick_chat").at(-1)).toEqual({ chat_id: null });
    expect(wrapper.get('[data-testid="quick-continue"]').attributes("disabled")).toBeDefined();
    const input = wrapper.get('[data-testid="composer-input"]').element as HTMLTextAreaElement;
    expect(input.value).toBe("Second");
  });

  it("hides on Escape", async () => {
    const fake = backend();
    await start(fake, "/quick");
    window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" }));
    expect(fake.callsTo("desktop.quick_hide")).toHaveLength(1);
  });
});

describe("main window", () => {
  it("opens the chat the desktop shell asks for, with its history re-read", async () => {
    const fake = backend();
    const { router } = await start(fake, "/");
    fake.emit([{ type: "desktop_command", action: "open_chat", open_chat_id: "q1", text: null, open_item_id: null }]);
    await tick();
    await tick();
    expect(router.currentRoute.value.fullPath).toBe("/chat/q1");
    expect(fake.callsTo("chats.get")).toContainEqual({ chat_id: "q1", limit: 50 });
  });
});

describe("Quick Ask at a cold start", () => {
  it("fills the box with text that arrived while the app was still connecting", async () => {
    const fake = backend();
    fake.emit([{ type: "desktop_command", action: "quick_opened", text: "early", open_chat_id: null, open_item_id: null }]);
    const { wrapper } = await start(fake, "/quick");
    await tick();
    await tick();
    const input = wrapper.get('[data-testid="composer-input"]').element as HTMLTextAreaElement;
    expect(input.value).toBe("early");
  });
});
