import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { AppInfo, ProviderView } from "@/api/generated";
import { ApiError } from "@/api/transport";
import App from "@/App.vue";
import { useApiStore } from "@/stores/api";
import { useAppStore } from "@/stores/app";
import { summary, turn } from "./helpers";
import { mountWith, tick } from "./mount";

const INFO: AppInfo = {
  version: "0.1.0", platform: "linux", first_run: false, data_dir: "/d", workspace: "/w",
  keyring: { available: true, backend: "memory", message: "ok" }, notices: [], database_busy: false,
};

function backend(info: Partial<AppInfo> = {}): FakeTransport {
  return new FakeTransport()
    .on("app.info", () => ({ ...INFO, ...info }))
    .on("settings.get", () => ({
      theme: "light", language: "en", workspace: "/w", last_model: { provider_id: "p1", model: "m1" },
      approval_mode: "ask_writes", tool_policies: {}, max_iterations: 20, allow_private_network: false, exec_env: [], sandbox_hidden: [], sandbox_readable: [], local_api: false, skill_evolution: false, vision_models: {}, model_prices: [], close_to_tray: true, quick_ask_hotkey: "",
    }))
    .on("chats.list", () => ({ chats: [summary("c1", "Existing chat")], next_before: null }))
    .on("chats.get", ({ chat_id }) => ({ chat: summary(chat_id, "Existing chat"), messages: [], has_more: false, viewing: null }))
    .on("providers.list", () => ({ providers: [] }))
    .on("models.list", () => ({ models: [{ provider_id: "p1", provider_name: "P", model: "m1", supports_tools: true, supports_vision: null }], errors: [] }));
}

async function start(fake: FakeTransport, path = "/") {
  const ctx = await mountWith(App, { fake, path });
  const done = useAppStore().start(fake);
  return { ...ctx, done };
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("app shell", () => {
  it("shows start-up notices from the backend and lets the user dismiss them", async () => {
    const fake = backend({ notices: ["Your settings could not be read. CashCode started with default settings."] });
    const { wrapper, done } = await start(fake);
    await done;
    await tick();
    const toast = wrapper.get('[data-testid="app-notice"]');
    expect(toast.text()).toContain("Your settings could not be read");
    await toast.get("button").trigger("click");
    expect(wrapper.find('[data-testid="app-notice"]').exists()).toBe(false);
  });

  it("says the database is busy until the backend finds it free, then re-reads the list", async () => {
    const fake = backend();
    let lists = 0;
    fake.on("chats.list", () => {
      lists += 1;
      return { chats: [summary("c1", lists > 1 ? "Renamed meanwhile" : "Existing chat")], next_before: null };
    });
    fake.on("chats.rename", () => {
      throw new ApiError("chats.rename", "database_busy", "The database is busy");
    });
    const { wrapper, done } = await start(fake);
    await done;
    await tick();
    expect(wrapper.find('[data-testid="database-busy"]').exists()).toBe(false);
    // A route answering database_busy shows it at once…
    await expect(useApiStore().invoke("chats.rename", { chat_id: "c1", title: "x" })).rejects.toThrow();
    await tick();
    expect(wrapper.get('[data-testid="database-busy"]').text()).toContain("another program is using it");
    // …and only the backend's all-clear hides it; the list is read again then.
    fake.emit([{ type: "database_status", busy: true }]);
    await tick();
    expect(wrapper.find('[data-testid="database-busy"]').exists()).toBe(true);
    fake.emit([{ type: "database_status", busy: false }]);
    await tick();
    await tick();
    expect(wrapper.find('[data-testid="database-busy"]').exists()).toBe(false);
    expect(wrapper.text()).toContain("Renamed meanwhile");
  });

  it("shows a loading state, then the layout", async () => {
    let release: () => void = () => undefined;
    const fake = backend();
    const gate = new Promise<void>((r) => (release = r));
    fake.on("app.info", async () => {
      await gate;
      return INFO;
    });
    const { wrapper, done } = await start(fake);
    expect(wrapper.get('[data-testid="app-root"]').attributes("data-status")).toBe("connecting");
    release();
    await done;
    await tick();
    expect(wrapper.get('[data-testid="app-root"]').attributes("data-status")).toBe("ready");
    expect(wrapper.find('[data-testid="new-chat"]').exists()).toBe(true);
    expect(wrapper.findAll('[data-testid="chat-list-item"]')).toHaveLength(1);
  });

  it("shows a readable error when the backend fails, and retries", async () => {
    const fake = backend();
    let fail = true;
    fake.on("app.info", () => {
      if (fail) throw new ApiError("app.info", "internal", "database is locked");
      return INFO;
    });
    const { wrapper, done } = await start(fake);
    await done;
    await tick();
    expect(wrapper.text()).toContain("database is locked");
    fail = false;
    await wrapper.get(".status-card button").trigger("click");
    await tick();
    await tick();
    expect(wrapper.find('[data-testid="new-chat"]').exists()).toBe(true);
  });

  it("re-reads the chat list after the event channel reconnects", async () => {
    const fake = backend();
    const { done } = await start(fake);
    await done;
    expect(fake.callsTo("chats.list")).toHaveLength(1);
    fake.reconnect();
    await tick();
    expect(fake.callsTo("chats.list")).toHaveLength(2);
  });

  it("a refused settings change is rolled back and reported", async () => {
    const fake = backend().on("settings.update", () => {
      throw new ApiError("settings.update", "invalid", "workspace does not exist");
    });
    const { wrapper, done, router } = await start(fake);
    await done;
    await router.push("/settings");
    await tick();
    await wrapper.get('[data-testid="theme-select"]').setValue("dark");
    await tick();
    await tick();
    expect((wrapper.get('[data-testid="theme-select"]').element as HTMLSelectElement).value).toBe("light");
    expect(wrapper.text()).toContain("workspace does not exist");
  });

  it("first run: offers the local Ollama and creates the provider", async () => {
    const fake = backend({ first_run: true })
      .on("app.detect_ollama", () => ({ found: true, base_url: "http://127.0.0.1:11434", models: ["llama3"], message: "" }))
      .on("providers.save", (input) => ({ id: "p9", name: input.name, kind: input.kind, base_url: input.base_url, api_key: "", has_key: false, timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: false }));
    const { wrapper, done } = await start(fake);
    await done;
    // The onboarding view is its own chunk (lazy route): wait for it to arrive.
    await vi.waitFor(() => expect(wrapper.find('[data-testid="onboarding"]').exists()).toBe(true));
    await wrapper.get('[data-testid="onboarding-use-ollama"]').trigger("click");
    await tick();
    await tick();
    expect(fake.callsTo("providers.save")).toEqual([{ name: "Ollama", kind: "ollama", base_url: "http://127.0.0.1:11434", api_key: "" }]);
    expect(wrapper.text()).toContain("m1");
  });

  it("first run without Ollama: Add a provider opens the preset dialog, saves, tests and closes", async () => {
    const view: ProviderView = { id: "p7", name: "DeepSeek", kind: "chat_completions", base_url: "https://api.deepseek.com/v1", api_key: "", has_key: true, timeout_s: null, first_token_timeout_s: null, default_model: "deepseek-chat", model_settings: [], parallel_requests: null, lean_tools: null, local: false };
    const fake = backend({ first_run: true })
      .on("app.detect_ollama", () => ({ found: false, base_url: "", models: [], message: "Connection refused" }))
      .on("providers.save", () => view)
      .on("providers.test", () => ({ ok: true, message: "", model_count: 2, code: null, timeout_s: null, params: {} }))
      .on("models.list", () => ({ models: [{ provider_id: "p7", provider_name: "DeepSeek", model: "deepseek-chat", supports_tools: null, supports_vision: null }], errors: [] }));
    const { wrapper, done } = await start(fake);
    await done;
    await vi.waitFor(() => expect(wrapper.find('[data-testid="onboarding-open-settings"]').exists()).toBe(true));
    expect(wrapper.find('[data-testid="onboarding-use-ollama"]').exists()).toBe(false);
    await wrapper.get('[data-testid="onboarding-open-settings"]').trigger("click");
    await vi.waitFor(() => expect(wrapper.find('[data-testid="add-provider-dialog"]').exists()).toBe(true));
    // Every preset is offered; a new provider's key hint does not talk about a stored key.
    for (const id of ["openai", "deepseek", "openrouter", "lmstudio", "ollama", "llamacpp", "custom"]) {
      expect(wrapper.find(`[data-testid="provider-preset-${id}"]`).exists()).toBe(true);
    }
    expect(wrapper.get('[data-testid="provider-key-hint"]').text()).not.toContain("********");
    await wrapper.get('[data-testid="provider-preset-deepseek"]').trigger("click");
    await tick();
    expect((wrapper.get('[data-testid="provider-base-url"]').element as HTMLInputElement).value).toBe("https://api.deepseek.com/v1");
    await wrapper.get('[data-testid="provider-key"]').setValue("sk-deepseek-test");
    await wrapper.get("form.provider-form").trigger("submit");
    await vi.waitFor(() => expect(fake.callsTo("providers.test")).toEqual([{ provider_id: "p7" }]));
    expect(fake.callsTo("providers.save")[0]).toMatchObject({ name: "DeepSeek", base_url: "https://api.deepseek.com/v1", api_key: "sk-deepseek-test", default_model: "deepseek-chat" });
    await vi.waitFor(() => expect(wrapper.find('[data-testid="add-provider-dialog"]').exists()).toBe(false));
    await vi.waitFor(() => expect(wrapper.text()).toContain("Connected. Available models:"));
    expect(wrapper.text()).toContain("deepseek-chat");
  });

  it("a provider whose connection test fails stays saved, the dialog says why and offers to keep it", async () => {
    const view: ProviderView = { id: "p8", name: "llama.cpp", kind: "chat_completions", base_url: "http://127.0.0.1:8080/v1", api_key: "", has_key: false, timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: true };
    const fake = backend({ first_run: true })
      .on("app.detect_ollama", () => ({ found: false, base_url: "", models: [], message: "Connection refused" }))
      .on("providers.save", () => view)
      .on("providers.test", () => ({ ok: false, message: "Cannot reach http://127.0.0.1:8080/v1", model_count: 0, code: "unreachable", timeout_s: null, params: {} }));
    const { wrapper, done } = await start(fake);
    await done;
    await vi.waitFor(() => expect(wrapper.find('[data-testid="onboarding-open-settings"]').exists()).toBe(true));
    await wrapper.get('[data-testid="onboarding-open-settings"]').trigger("click");
    await vi.waitFor(() => expect(wrapper.find('[data-testid="provider-preset-llamacpp"]').exists()).toBe(true));
    await wrapper.get('[data-testid="provider-preset-llamacpp"]').trigger("click");
    await tick();
    await wrapper.get("form.provider-form").trigger("submit");
    await vi.waitFor(() => expect(wrapper.find('[data-testid="add-provider-test-failed"]').exists()).toBe(true));
    expect(wrapper.find('[data-testid="add-provider-dialog"]').exists()).toBe(true);
    // Saving again updates the same provider rather than adding a second one.
    await wrapper.get("form.provider-form").trigger("submit");
    await vi.waitFor(() => expect(fake.callsTo("providers.save")).toHaveLength(2));
    expect(fake.callsTo("providers.save")[1]).toMatchObject({ id: "p8" });
    await vi.waitFor(() => expect(wrapper.find('[data-testid="add-provider-keep"]').exists()).toBe(true));
    await wrapper.get('[data-testid="add-provider-keep"]').trigger("click");
    await vi.waitFor(() => expect(wrapper.find('[data-testid="add-provider-dialog"]').exists()).toBe(false));
  });
});

describe("chat view", () => {
  async function chat() {
    const fake = backend()
      .on("chat.send", ({ chat_id }) => ({ chat_id, turn_id: "t1" }))
      .on("chat.cancel", () => ({ ok: true }))
      .on("chat.approve", () => ({ ok: true }))
      .on("chat.retry", ({ chat_id }) => ({ chat_id, turn_id: "t2" }));
    const ctx = await start(fake, "/chat/c1");
    await ctx.done;
    await tick();
    return ctx;
  }

  it("sends with the chosen model and streams the reply", async () => {
    const { wrapper, fake, chats, runFrames } = await chat();
    await wrapper.get('[data-testid="composer-input"]').setValue("Hello");
    await wrapper.get('[data-testid="send-button"]').trigger("click");
    await tick();
    expect(fake.callsTo("chat.send")).toEqual([{ chat_id: "c1", text: "Hello", model: { provider_id: "p1", model: "m1" } }]);
    const t = turn("c1", "t1");
    chats.applyBatch([t.started("Hello"), t.delta("Hi **there**")]);
    runFrames();
    await tick();
    expect(wrapper.get('[data-testid="message-user"]').text()).toBe("Hello");
    const assistant = wrapper.get('[data-testid="message-assistant"]');
    expect(assistant.attributes("data-state")).toBe("streaming");
    expect(wrapper.get('[data-testid="streaming-message"]').find("strong").text()).toBe("there");
    expect(wrapper.find('[data-testid="stop-button"]').exists()).toBe(true);
    await wrapper.get('[data-testid="stop-button"]').trigger("click");
    expect(fake.callsTo("chat.cancel")).toEqual([{ chat_id: "c1" }]);
    chats.applyBatch([t.cancelled()]);
    await tick();
    expect(wrapper.get('[data-testid="message-assistant"]').attributes("data-state")).toBe("cancelled");
    expect(wrapper.find('[data-testid="streaming-message"]').exists()).toBe(false);
    await wrapper.get('[data-testid="retry-button"]').trigger("click");
    expect(fake.callsTo("chat.retry")).toEqual([{ chat_id: "c1" }]);
  });

  it("a message sent while New chat is still being created goes to the new chat, once", async () => {
    const { wrapper, fake, router } = await chat();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    fake.on("chats.create", async () => {
      await gate;
      return summary("c3", "New chat");
    });
    await wrapper.get('[data-testid="new-chat"]').trigger("click");
    await tick();
    expect(router.currentRoute.value.name).toBe("home"); // the empty chat shows before the bridge answers
    await wrapper.get('[data-testid="composer-input"]').setValue("Plan a trip");
    await wrapper.get('[data-testid="send-button"]').trigger("click");
    await tick();
    expect(fake.callsTo("chat.send")).toEqual([]);
    release();
    await vi.waitFor(() => expect(fake.callsTo("chat.send")).toHaveLength(1));
    expect(fake.callsTo("chat.send")[0]).toMatchObject({ chat_id: "c3", text: "Plan a trip" });
    expect(fake.callsTo("chats.create")).toHaveLength(1);
    await vi.waitFor(() => expect(router.currentRoute.value.fullPath).toBe("/chat/c3"));
  });

  it("renders hostile model output inert in the page", async () => {
    const { wrapper, chats, runFrames } = await chat();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started("x"), t.delta('<img src=x onerror="alert(1)"> [x](javascript:alert(1)) <script>alert(1)</script>')]);
    runFrames();
    await tick();
    const el = wrapper.get('[data-testid="message-assistant"]').element;
    expect(el.querySelectorAll("script, img, iframe").length).toBe(0);
    expect(el.innerHTML).not.toMatch(/href="javascript:/i);
  });

  it("shows the approval dialog and answers it", async () => {
    const { wrapper, fake, chats } = await chat();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started("x"), t.tool("k1", "exec"), t.approval("a1", "k1")]);
    await tick();
    expect(wrapper.get('[data-testid="approval-detail"]').text()).toBe("ls -la");
    expect(wrapper.get('[data-testid="tool-card"]').attributes("data-state")).toBe("awaiting");
    await wrapper.get('[data-testid="approval-once"]').trigger("click");
    await tick();
    expect(fake.callsTo("chat.approve")).toEqual([{ approval_id: "a1", decision: "once", via: "chat" }]);
    expect(wrapper.find('[data-testid="approval-dialog"]').exists()).toBe(false);
  });

  it("a failed turn shows the provider's message and Retry", async () => {
    const { wrapper, chats } = await chat();
    const t = turn("c1", "t1");
    chats.applyBatch([t.started("x"), t.failed("Model 'gpt-9' not found at this provider.")]);
    await tick();
    expect(wrapper.get('[data-testid="error-banner"]').text()).toContain("Model 'gpt-9' not found at this provider.");
    expect(wrapper.get('[data-testid="message-assistant"]').attributes("data-state")).toBe("failed");
    expect(wrapper.find('[data-testid="retry-button"]').exists()).toBe(true);
  });
  it("first run: the onboarding replaces an empty home, but not a view the user is already opening", async () => {
    const fresh = backend({ first_run: true });
    const home = await start(fresh);
    await home.done;
    await vi.waitFor(() => expect(home.router.currentRoute.value.name).toBe("welcome"));
    home.wrapper.unmount();

    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const slow = backend({ first_run: true });
    slow.on("app.info", async () => {
      await gate;
      return { ...INFO, first_run: true };
    });
    const away = await start(slow);
    const opening = away.router.push({ name: "usage" }); // its lazy view may still be loading
    release();
    await away.done;
    await opening;
    await tick();
    expect(away.router.currentRoute.value.name).toBe("usage");
  });
});
