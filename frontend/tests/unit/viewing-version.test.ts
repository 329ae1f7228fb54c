/** Issue 25 item 7: a search hit on an older version opens it with a notice; the chat's
 * current version is not switched until the user makes it current (or sends from it). */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { AppInfo } from "@/api/generated";
import App from "@/App.vue";
import { useAppStore } from "@/stores/app";
import { message, settingsView, summary } from "./helpers";
import { mountWith, tick } from "./mount";

const INFO: AppInfo = {
  version: "0.1.0", platform: "linux", first_run: false, data_dir: "/d", workspace: "/w",
  keyring: { available: true, backend: "memory", message: "ok" }, notices: [], database_busy: false,
};
const CURRENT = [message(1, "user", "Name a fruit"), message(3, "assistant", "Papaya is better.", { turn_id: "t2", siblings: [2, 3], sibling_index: 1 })];
const OLDER = [message(1, "user", "Name a fruit"), message(2, "assistant", "Mango is sweet.", { siblings: [2, 3], sibling_index: 0 })];
const VIEWING = { cursor: 2, index: 1, count: 2, leaf: 2 };

function backend(): FakeTransport {
  return new FakeTransport()
    .on("app.info", () => INFO)
    .on("settings.get", () => settingsView({ theme: "light", last_model: { provider_id: "p1", model: "m1" } }))
    .on("chats.list", () => ({ chats: [summary("c1", "Fruit")], next_before: null }))
    .on("chats.get", ({ chat_id, through }) =>
      through === 2
        ? { chat: summary(chat_id, "Fruit"), messages: OLDER, has_more: false, viewing: VIEWING }
        : { chat: summary(chat_id, "Fruit"), messages: CURRENT, has_more: false, viewing: null },
    )
    .on("chats.switch_branch", ({ chat_id }) => ({ chat: summary(chat_id, "Fruit"), messages: OLDER, has_more: false, viewing: null }))
    .on("chat.send", ({ chat_id }) => ({ chat_id, turn_id: "t9" }))
    .on("providers.list", () => ({ providers: [] }))
    .on("models.list", () => ({ models: [{ provider_id: "p1", provider_name: "P", model: "m1", supports_tools: true, supports_vision: null }], errors: [] }));
}

async function openHit(fake: FakeTransport) {
  const ctx = await mountWith(App, { fake, path: "/chat/c1?at=2" });
  await useAppStore().start(fake);
  await vi.waitFor(() => expect(ctx.wrapper.find('[data-testid="viewing-version"]').exists()).toBe(true));
  return ctx;
}

// jsdom has neither CSS.escape nor scrollIntoView; the view scrolls to the opened hit with them.
if (!globalThis.CSS?.escape) vi.stubGlobal("CSS", { escape: (text: string) => text.replace(/["\\]/g, "\\$&") });
if (!HTMLElement.prototype.scrollIntoView) HTMLElement.prototype.scrollIntoView = () => undefined;

afterEach(() => {
  document.body.innerHTML = "";
});

describe("viewing an older version", () => {
  it("shows the version with a notice, switches nothing, and Back to current returns", async () => {
    const fake = backend();
    const { wrapper } = await openHit(fake);
    expect(wrapper.get('[data-testid="viewing-version"]').text()).toContain("You are viewing version 1/2");
    expect(wrapper.text()).toContain("Mango is sweet.");
    expect(fake.callsTo("chats.switch_branch")).toEqual([]);
    await wrapper.get('[data-testid="back-to-current"]').trigger("click");
    await vi.waitFor(() => expect(wrapper.find('[data-testid="viewing-version"]').exists()).toBe(false));
    expect(wrapper.text()).toContain("Papaya is better.");
    expect(fake.callsTo("chats.switch_branch")).toEqual([]);
  });

  it("Make current switches to the viewed version's leaf", async () => {
    const fake = backend();
    const { wrapper } = await openHit(fake);
    await wrapper.get('[data-testid="make-current"]').trigger("click");
    await vi.waitFor(() => expect(wrapper.find('[data-testid="viewing-version"]').exists()).toBe(false));
    expect(fake.callsTo("chats.switch_branch")).toEqual([{ chat_id: "c1", cursor: 2 }]);
  });

  it("sending from the viewed version makes it current first", async () => {
    const fake = backend();
    const { wrapper } = await openHit(fake);
    await wrapper.get('[data-testid="composer-input"]').setValue("And a vegetable?");
    await wrapper.get('[data-testid="send-button"]').trigger("click");
    await vi.waitFor(() => expect(fake.callsTo("chat.send")).toHaveLength(1));
    expect(fake.callsTo("chats.switch_branch")).toEqual([{ chat_id: "c1", cursor: 2 }]);
    await tick();
    expect(wrapper.find('[data-testid="viewing-version"]').exists()).toBe(false);
  });
});
