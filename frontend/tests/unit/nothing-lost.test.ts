/** Issue 25 item 1: nothing typed is lost; a stopped answer stays, marked Stopped. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { AppInfo } from "@/api/generated";
import { ApiError } from "@/api/transport";
import App from "@/App.vue";
import { buildTranscript } from "@/model/transcript";
import { useAppStore } from "@/stores/app";
import { message, settingsView, summary, turn } from "./helpers";
import { mountWith, tick } from "./mount";

const INFO: AppInfo = {
  version: "0.1.0", platform: "linux", first_run: false, data_dir: "/d", workspace: "/w",
  keyring: { available: true, backend: "memory", message: "ok" }, notices: [], database_busy: false,
};
const PROVIDER = {
  id: "p1", name: "P", kind: "chat_completions", base_url: "http://127.0.0.1:1/v1", has_key: true, key_ref: null, enabled: true, default_model: null, headers: {},
} as unknown as import("@/api/generated").ProviderView;
const FILE = { sha256: "a".repeat(64), name: "notes.txt", mime: "text/plain", size: 5, kind: "text" as const };

function backend(): FakeTransport {
  return new FakeTransport()
    .on("app.info", () => INFO)
    .on("settings.get", () => settingsView({ theme: "light", last_model: { provider_id: "p1", model: "m1" } }))
    .on("chats.list", () => ({ chats: [summary("c1", "Existing chat"), summary("q1", "Quick")], next_before: null }))
    .on("chats.create", () => summary("q1", "Quick"))
    .on("chats.get", ({ chat_id }) => ({ chat: summary(chat_id), messages: [], has_more: false, viewing: null }))
    .on("chat.send", ({ chat_id }) => ({ chat_id, turn_id: "t1" }))
    .on("desktop.quick_chat", () => ({ ok: true }))
    .on("providers.list", () => ({ providers: [] }))
    .on("models.list", () => ({ models: [{ provider_id: "p1", provider_name: "P", model: "m1", supports_tools: true, supports_vision: null }], errors: [] }));
}

async function start(fake: FakeTransport, path: string) {
  const ctx = await mountWith(App, { fake, path });
  await useAppStore().start(fake);
  await tick();
  return ctx;
}

function input(wrapper: Awaited<ReturnType<typeof start>>["wrapper"]): HTMLTextAreaElement {
  return wrapper.get('[data-testid="composer-input"]').element as HTMLTextAreaElement;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("nothing typed is lost", () => {
  it("a refused send keeps the text and the attached file in the composer", async () => {
    const fake = backend().on("chat.send", () => {
      throw new ApiError("chat.send", "invalid", "The model m1 cannot see images. Nothing was sent.");
    });
    const { wrapper, chats } = await start(fake, "/chat/c1");
    chats.runtime("c1").returned = null;
    await wrapper.get('[data-testid="composer-input"]').setValue("Describe this");
    // An attachment already uploaded (an MCP resource takes the same path as a picked file).
    (wrapper.findComponent({ name: "ChatComposer" }).vm as unknown as { restore(t: string, r: unknown[]): void }).restore("", [FILE]);
    await tick();
    await wrapper.get('[data-testid="composer-input"]').setValue("Describe this");
    await wrapper.get('[data-testid="send-button"]').trigger("click");
    await vi.waitFor(() => expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(true));
    await tick();
    expect(input(wrapper).value).toBe("Describe this");
    expect(wrapper.text()).toContain("notes.txt");
    expect(fake.callsTo("chat.send")).toHaveLength(1);
  });

  it("a turn that fails before any answer puts the message back and leaves no unsent bubble", async () => {
    const fake = backend();
    const { wrapper, chats } = await start(fake, "/chat/c1");
    await wrapper.get('[data-testid="composer-input"]').setValue("Hello there");
    await wrapper.get('[data-testid="send-button"]').trigger("click");
    await tick();
    expect(input(wrapper).value).toBe("");
    const t = turn("c1", "t1");
    chats.applyBatch([t.started("Hello there"), t.failed("Invalid API key (401).")]);
    await tick();
    await tick();
    expect(input(wrapper).value).toBe("Hello there");
    expect(wrapper.find('[data-testid="message-user"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="error-banner"]').text()).toContain("Invalid API key (401).");
  });

  it("the error banner clears when the next message starts and when the provider list changes", async () => {
    const fake = backend();
    const { wrapper, chats } = await start(fake, "/chat/c1");
    const t = turn("c1", "t1");
    chats.runtime("c1").error = { code: "provider_error", message: "Invalid API key (401).", retry_after_s: null, params: {}, key: "" };
    await tick();
    expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(true);
    chats.applyBatch([t.started("again")]);
    await tick();
    expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(false);
    chats.applyBatch([t.failed("Invalid API key (401).")]);
    await tick();
    expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(true);
    const { useProvidersStore } = await import("@/stores/providers");
    const providers = useProvidersStore();
    providers.providers = [{ ...PROVIDER }]; // a key fixed in Settings → Providers
    await tick();
    expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(false);
  });

  it("Quick Ask: a refused send keeps the question in its box", async () => {
    const fake = backend().on("chat.send", () => {
      throw new ApiError("chat.send", "invalid", "No model is available yet.");
    });
    const { wrapper } = await start(fake, "/quick");
    await wrapper.get('[data-testid="composer-input"]').setValue("What time is it in Tokyo?");
    await wrapper.get('[data-testid="send-button"]').trigger("click");
    await vi.waitFor(() => expect(wrapper.find('[data-testid="error-banner"]').exists()).toBe(true));
    await tick();
    expect(input(wrapper).value).toBe("What time is it in Tokyo?");
  });

  it("a stopped answer read from history is shown as Stopped, not as done", () => {
    const entries = buildTranscript([message(1, "user", "tell me"), message(2, "assistant", "Once upon", { stopped: true })]);
    expect(entries.map((e) => (e.kind === "assistant" ? e.state : e.kind))).toEqual(["user", "cancelled"]);
  });

  it("a stop reloads the chat so the stored partial answer replaces the live one", async () => {
    const fake = backend();
    const { wrapper, chats, runFrames } = await start(fake, "/chat/c1");
    await wrapper.get('[data-testid="composer-input"]').setValue("tell me");
    await wrapper.get('[data-testid="send-button"]').trigger("click");
    await tick();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started("tell me"), t.delta("Once upon")]);
    runFrames();
    fake.on("chats.get", ({ chat_id }) => ({
      chat: summary(chat_id), has_more: false, viewing: null,
      messages: [message(1, "user", "tell me"), message(2, "assistant", "Once upon", { stopped: true })],
    }));
    chats.applyBatch([t.cancelled()]);
    await vi.waitFor(() => expect(chats.runtime("c1").live).toBeNull());
    await tick();
    const answer = wrapper.get('[data-testid="message-assistant"]');
    expect(answer.attributes("data-state")).toBe("cancelled");
    expect(answer.text()).toContain("Once upon");
    expect(answer.text()).toContain("Stopped");
    expect(wrapper.find('[data-testid="retry-button"]').exists()).toBe(false);
    expect(input(wrapper).value).toBe("");
  });
});
