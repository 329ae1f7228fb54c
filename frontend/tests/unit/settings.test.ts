import { afterEach, describe, expect, it } from "vitest";
import type { ProviderInput, ProviderView, SettingsView } from "@/api/generated";
import { ApiError } from "@/api/transport";
import GeneralSection from "@/components/settings/GeneralSection.vue";
import GrantsSection from "@/components/settings/GrantsSection.vue";
import ProvidersSection from "@/components/settings/ProvidersSection.vue";
import WorkspaceSection from "@/components/settings/WorkspaceSection.vue";
import { MASK, draftFrom, toInput, withKind } from "@/model/providerForm";
import { settingsQueryFor } from "@/model/settingsLink";
import { useProvidersStore } from "@/stores/providers";
import { useSettingsStore } from "@/stores/settings";
import { mountWith, tick } from "./mount";

const STORED: ProviderView = { id: "p1", name: "OpenAI", kind: "chat_completions", base_url: "https://api.openai.com/v1", api_key: MASK, has_key: true, timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: false };
const SETTINGS: SettingsView = {
  theme: "system", language: "en", workspace: "/w", last_model: null, approval_mode: "ask_writes",
  tool_policies: {}, max_iterations: 20, allow_private_network: false, exec_env: [], sandbox_hidden: [], sandbox_readable: [], local_api: false, skill_evolution: false, vision_models: {}, model_prices: [], close_to_tray: true, quick_ask_hotkey: "",
};

afterEach(() => {
  document.body.innerHTML = "";
  document.documentElement.className = "";
});

describe("provider form logic", () => {
  it("mask keeps, empty clears, new value replaces", () => {
    const draft = draftFrom(STORED);
    expect(draft.apiKey).toBe(MASK);
    expect(toInput(draft).api_key).toBe(MASK);
    expect(toInput({ ...draft, apiKey: "" }).api_key).toBe("");
    // The API keeps the key for a bare "" (issue 40): an emptied field says so with clear_key.
    expect(toInput({ ...draft, apiKey: "" }).clear_key).toBe(true);
    expect(toInput({ ...draft, apiKey: "   " }).clear_key).toBe(true);
    expect(toInput(draft).clear_key).toBeUndefined();
    expect(toInput({ ...draft, apiKey: " sk-new " }).api_key).toBe("sk-new");
  });

  it("limits: empty fields are the server's default, rows without a value are not sent", () => {
    const draft = {
      ...draftFrom({ ...STORED, timeout_s: 120, model_settings: [{ model: "*", temperature: 0.2, max_output_tokens: null, context_length: null }] }),
    };
    expect([draft.timeout, draft.firstTokenTimeout, draft.models[0]?.temperature]).toEqual(["120", "", "0.2"]);
    const input = toInput({
      ...draft,
      firstTokenTimeout: " 30 ",
      models: [...draft.models, { model: "small", temperature: "", maxTokens: "256", contextLength: "" }, { model: "x", temperature: "", maxTokens: "", contextLength: "" }],
    });
    expect([input.timeout_s, input.first_token_timeout_s, input.default_model]).toEqual([120, 30, null]);
    expect(input.model_settings).toEqual([
      { model: "*", temperature: 0.2, max_output_tokens: null, context_length: null },
      { model: "small", temperature: null, max_output_tokens: 256, context_length: null },
    ]);
  });

  it("switching kind swaps default base URLs but keeps custom ones", () => {
    const fresh = draftFrom(null);
    expect(withKind(fresh, "ollama").baseUrl).toBe("http://127.0.0.1:11434");
    expect(withKind({ ...fresh, baseUrl: "http://my-llm:8000/v1" }, "ollama").baseUrl).toBe("http://my-llm:8000/v1");
  });
});

describe("providers section", () => {
  async function section() {
    const ctx = await mountWith(ProvidersSection);
    const saved: ProviderInput[] = [];
    ctx.fake
      .on("providers.save", (input) => {
        saved.push(input);
        return { id: input.id ?? "p2", name: input.name, kind: input.kind, base_url: input.base_url, api_key: input.api_key ? MASK : "", has_key: Boolean(input.api_key), timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: false };
      })
      .on("models.list", () => ({ models: [], errors: [] }))
      .on("providers.test", () => ({ ok: false, message: "401: the API key was rejected.", model_count: 0, code: "auth", timeout_s: null, params: {} }))
      .on("providers.delete", () => ({ ok: true }));
    useProvidersStore().providers = [STORED];
    await tick();
    return { ...ctx, saved };
  }

  it("editing shows the mask and submitting it keeps the key", async () => {
    const { wrapper, saved } = await section();
    await wrapper.get('[data-testid="provider-edit"]').trigger("click");
    const key = wrapper.get('[data-testid="provider-key"]');
    expect((key.element as HTMLInputElement).value).toBe("********");
    await wrapper.get('[data-testid="provider-name"]').setValue("OpenAI work");
    await wrapper.get("form").trigger("submit");
    await tick();
    expect(saved).toEqual([{ id: "p1", name: "OpenAI work", kind: "chat_completions", base_url: "https://api.openai.com/v1", api_key: MASK, timeout_s: null, first_token_timeout_s: null, parallel_requests: null, lean_tools: null, default_model: null, model_settings: [] }]);
  });

  it("moving the base URL to another host asks for the key again", async () => {
    const { wrapper, saved } = await section();
    await wrapper.get('[data-testid="provider-edit"]').trigger("click");
    await wrapper.get('[data-testid="provider-base-url"]').setValue("https://api.openai.com/v2");
    expect(wrapper.find('[data-testid="provider-key-reenter"]').exists()).toBe(false);
    await wrapper.get('[data-testid="provider-base-url"]').setValue("https://evil.example/v1");
    expect(wrapper.get('[data-testid="provider-key-reenter"]').text()).toContain("enter the API key again");
    await wrapper.get("form").trigger("submit");
    await tick();
    expect(saved).toEqual([]);
    await wrapper.get('[data-testid="provider-key"]').setValue("sk-for-the-new-host");
    expect(wrapper.find('[data-testid="provider-key-reenter"]').exists()).toBe(false);
    await wrapper.get("form").trigger("submit");
    await tick();
    expect(saved.at(-1)?.api_key).toBe("sk-for-the-new-host");
  });

  it("clearing the key field removes the key", async () => {
    const { wrapper, saved } = await section();
    await wrapper.get('[data-testid="provider-edit"]').trigger("click");
    await wrapper.get('[data-testid="provider-key"]').setValue("");
    await wrapper.get('[data-testid="provider-save"]').trigger("click");
    await tick();
    expect(saved.at(-1)?.api_key).toBe("");
    expect(saved.at(-1)?.clear_key).toBe(true);
  });

  it("after saving a new key the form shows only the mask", async () => {
    const { wrapper } = await section();
    await wrapper.get('[data-testid="provider-add"]').trigger("click");
    await wrapper.get('[data-testid="provider-name"]').setValue("Work");
    await wrapper.get('[data-testid="provider-key"]').setValue("sk-secret-123");
    await wrapper.get('[data-testid="provider-save"]').trigger("click");
    await tick();
    const keys = wrapper.findAll('[data-testid="provider-key"]');
    expect(keys).toHaveLength(1);
    expect((keys[0].element as HTMLInputElement).value).toBe("********");
    expect(wrapper.html()).not.toContain("sk-secret-123");
  });

  it("adds an Ollama provider with its default base URL", async () => {
    const { wrapper, saved } = await section();
    await wrapper.get('[data-testid="provider-add"]').trigger("click");
    await wrapper.get('[data-testid="provider-name"]').setValue("Local");
    await wrapper.get('[data-testid="provider-kind"]').setValue("ollama");
    expect((wrapper.get('[data-testid="provider-base-url"]').element as HTMLInputElement).value).toBe("http://127.0.0.1:11434");
    await wrapper.get("form").trigger("submit");
    await tick();
    expect(saved).toEqual([{ id: null, name: "Local", kind: "ollama", base_url: "http://127.0.0.1:11434", api_key: "", timeout_s: null, first_token_timeout_s: null, parallel_requests: null, lean_tools: null, default_model: null, model_settings: [] }]);
    expect(wrapper.findAll('[data-testid="provider-row"]')).toHaveLength(2);
  });

  it("test connection shows the result message", async () => {
    const { wrapper } = await section();
    await wrapper.get('[data-testid="provider-test"]').trigger("click");
    await tick();
    expect(wrapper.get('[data-testid="provider-test-result"]').text()).toBe("401: the API key was rejected.");
  });

  it("opened from the vision error, the model's provider shows its models with the vision toggles", async () => {
    const ctx = await mountWith(ProvidersSection, { path: "/settings?section=providers&provider=p1" });
    ctx.fake.on("models.list", () => ({
      models: [{ provider_id: "p1", provider_name: "OpenAI", model: "gpt-x", supports_tools: null, supports_vision: null }],
      errors: [],
    }));
    useProvidersStore().providers = [STORED, { ...STORED, id: "p2", name: "Other" }];
    await tick();
    await tick();
    expect(ctx.fake.callsTo("models.list")).toEqual([{ provider_id: "p1" }]);
    const rows = ctx.wrapper.findAll('[data-testid="provider-row"]');
    expect(rows[0].get('[data-testid="provider-models"]').attributes("aria-expanded")).toBe("true");
    expect(rows[0].find('[data-testid="vision-toggle"]').exists()).toBe(true);
    expect(rows[1].get('[data-testid="provider-models"]').attributes("aria-expanded")).toBe("false");
  });

  it("the vision error's Open settings names the provider of the model it was sent to", () => {
    const error = { code: "invalid", message: "", retry_after_s: null, params: { model: "m" }, key: "attach.no_vision" };
    expect(settingsQueryFor(error, { provider_id: "p1", model: "m" })).toEqual({ section: "providers", provider: "p1" });
    expect(settingsQueryFor({ ...error, key: "" }, { provider_id: "p1", model: "m" })).toEqual({ section: "providers" });
  });

  it("delete asks for confirmation", async () => {
    const { wrapper, fake } = await section();
    await wrapper.get('[data-testid="provider-delete"]').trigger("click");
    (document.querySelector('[data-testid="confirm-ok"]') as HTMLElement).click();
    await tick();
    expect(fake.callsTo("providers.delete")).toEqual([{ provider_id: "p1" }]);
    expect(wrapper.findAll('[data-testid="provider-row"]')).toHaveLength(0);
  });
});

describe("general, workspace and ledger", () => {
  it("theme applies immediately and language switches every string", async () => {
    const { wrapper, fake } = await mountWith(GeneralSection);
    fake.on("settings.update", (patch) => ({ ...SETTINGS, ...(patch as Partial<SettingsView>) }));
    useSettingsStore().view = SETTINGS;
    await tick();
    await wrapper.get('[data-testid="theme-select"]').setValue("dark");
    expect(useSettingsStore().theme).toBe("dark");
    await wrapper.get('[data-testid="language-select"]').setValue("zh-CN");
    await tick();
    expect(wrapper.text()).toContain("主题");
    await wrapper.get('[data-testid="approval-mode-select"]').setValue("read_only");
    expect(fake.callsTo("settings.update")).toEqual([{ theme: "dark" }, { language: "zh-CN" }, { approval_mode: "read_only" }]);
  });

  it("the folder button fills the field, and is disabled once the route answers unsupported", async () => {
    const { wrapper, fake } = await mountWith(WorkspaceSection);
    let supported = true;
    fake
      .on("desktop.pick_folder", () => {
        if (!supported) throw new ApiError("desktop.pick_folder", "unsupported", "desktop only");
        return { path: "/picked" };
      })
      .on("settings.update", (patch) => ({ ...SETTINGS, workspace: patch.workspace ?? "/w" }));
    await wrapper.get('[data-testid="workspace-pick"]').trigger("click");
    await tick();
    expect((wrapper.get('[data-testid="workspace-input"]').element as HTMLInputElement).value).toBe("/picked");
    await wrapper.get('[data-testid="workspace-save"]').trigger("click");
    await tick();
    expect(fake.callsTo("settings.update").at(-1)).toEqual({ workspace: "/picked" });
    supported = false;
    await wrapper.get('[data-testid="workspace-pick"]').trigger("click");
    await tick();
    expect(wrapper.get('[data-testid="workspace-pick"]').attributes("disabled")).toBeDefined();
  });

  it("shows web host grants in both languages", async () => {
    const hostGrant = { id: "g2", kind: "web_host" as const, key: ["example.com"], workspace: "", created_at: "2026-11-30T09:00:00Z", chat_id: null, enabled: true };
    const { FakeTransport } = await import("@/api/fake");
    const fake = new FakeTransport().on("approvals.list", () => ({ grants: [hostGrant] }));
    const { wrapper } = await mountWith(GrantsSection, { fake });
    await tick();
    const row = wrapper.get('[data-testid="grant-row"]');
    expect(row.text()).toContain("Web host");
    expect(row.text()).toContain("example.com");
    expect(row.text()).toContain("Any workspace");
    const { zhCN } = await import("@/i18n/zh-CN");
    expect(zhCN["grants.kind.web_host"]).toBe("网站主机");
  });

  it("shows an imported grant as not active until the user enables it", async () => {
    const imported = { id: "g3", kind: "exec" as const, key: ["python3", "-c", "x".repeat(300)], workspace: "/w", created_at: "2026-11-30T09:00:00Z", chat_id: null, enabled: false };
    const { FakeTransport } = await import("@/api/fake");
    const fake = new FakeTransport().on("approvals.list", () => ({ grants: [imported] })).on("approvals.enable", () => ({ ok: true }));
    const { wrapper } = await mountWith(GrantsSection, { fake });
    await tick();
    const row = wrapper.get('[data-testid="grant-row"]');
    expect(row.text()).toContain("x".repeat(300));
    expect(row.get('[data-testid="grant-disabled"]').text()).toBe("Imported, not active");
    await row.get('[data-testid="grant-enable"]').trigger("click");
    await tick();
    expect(fake.callsTo("approvals.enable")).toEqual([{ grant_id: "g3" }]);
    expect(wrapper.find('[data-testid="grant-enable"]').exists()).toBe(false);
  });

  it("lists grants and revokes them", async () => {
    const fakeGrants = [{ id: "g1", kind: "exec" as const, key: ["git", "status", "--short"], workspace: "/w", created_at: "2026-11-30T09:00:00Z", chat_id: null, enabled: true }];
    const { FakeTransport } = await import("@/api/fake");
    const fake = new FakeTransport().on("approvals.list", () => ({ grants: fakeGrants })).on("approvals.revoke", () => ({ ok: true }));
    const { wrapper } = await mountWith(GrantsSection, { fake });
    await tick();
    const row = wrapper.get('[data-testid="grant-row"]');
    expect(row.text()).toContain("git status --short");
    expect(row.text()).toContain("/w");
    await row.get('[data-testid="grant-revoke"]').trigger("click");
    await tick();
    expect(fake.callsTo("approvals.revoke")).toEqual([{ grant_id: "g1" }]);
    expect(wrapper.findAll('[data-testid="grant-row"]')).toHaveLength(0);
  });
});

describe("tools section: command environment", () => {
  it("saves extra environment names as a list", async () => {
    const { default: ToolsSection } = await import("@/components/settings/ToolsSection.vue");
    const { FakeTransport } = await import("@/api/fake");
    const fake = new FakeTransport()
      .on("tools.list", () => ({ tools: [] }))
      .on("settings.update", (patch) => ({ ...SETTINGS, exec_env: patch.exec_env ?? [] }));
    const { wrapper } = await mountWith(ToolsSection, { fake });
    useSettingsStore().view = SETTINGS;
    await tick();
    await wrapper.get('[data-testid="exec-env"]').setValue("JAVA_HOME, VIRTUAL_ENV  GOPATH");
    await tick();
    expect(fake.callsTo("settings.update").at(-1)).toEqual({ exec_env: ["JAVA_HOME", "VIRTUAL_ENV", "GOPATH"] });
  });
});

describe("tools section", () => {
  it("lists tools and saves a policy change", async () => {
    const { default: ToolsSection } = await import("@/components/settings/ToolsSection.vue");
    const { FakeTransport } = await import("@/api/fake");
    const fake = new FakeTransport()
      .on("tools.list", () => ({ tools: [{ name: "exec", description: "Run a command", read_only: false, policy: "ask" as const, group: "builtin" }] }))
      .on("settings.update", (patch) => ({ ...SETTINGS, tool_policies: patch.tool_policies ?? {} }));
    const { wrapper } = await mountWith(ToolsSection, { fake });
    useSettingsStore().view = SETTINGS;
    await tick();
    const row = wrapper.get('[data-testid="tool-row"]');
    expect(row.text()).toContain("exec");
    await row.get("select").setValue("never");
    expect(fake.callsTo("settings.update")).toEqual([{ tool_policies: { exec: "never" } }]);
  });
});

describe("tools section: groups", () => {
  it("groups the tools by where they come from and sets a capability tool's policy", async () => {
    const { default: ToolsSection } = await import("@/components/settings/ToolsSection.vue");
    const { FakeTransport } = await import("@/api/fake");
    const tool = (name: string, group: string, read_only = false) => ({
      name,
      description: `${name} does things`,
      read_only,
      policy: read_only ? ("always" as const) : ("ask" as const),
      group,
    });
    const fake = new FakeTransport()
      .on("tools.list", () => ({
        tools: [
          tool("read_file", "builtin", true),
          tool("web_search", "websearch"),
          tool("remember_memory", "memory"),
          tool("search_memories", "memory", true),
          tool("skill_load", "skills", true),
          tool("tool_search", "mcp", true),
          tool("custom_tool", "plugin"),
        ],
      }))
      .on("settings.update", (patch) => ({ ...SETTINGS, tool_policies: patch.tool_policies ?? {} }));
    const { wrapper } = await mountWith(ToolsSection, { fake });
    useSettingsStore().view = SETTINGS;
    await tick();
    const names = (id: string) =>
      wrapper.get(`[data-testid="tool-group-${id}"]`).findAll('[data-testid="tool-row"] code').map((c) => c.text());
    expect(names("builtin")).toEqual(["read_file"]);
    expect(names("memory")).toEqual(["remember_memory", "search_memories"]);
    expect(names("skills")).toEqual(["skill_load"]);
    expect(names("mcp")).toEqual(["tool_search"]);
    expect(names("plugin")).toEqual(["custom_tool"]); // an unknown group is still shown, under its name
    expect(wrapper.get('[data-testid="tool-group-memory"] th').text()).toBe("Memory, notes and to-dos");
    const groupOrder = wrapper.findAll("tbody").map((b) => b.attributes("data-testid"));
    expect(groupOrder).toEqual([
      "tool-group-builtin",
      "tool-group-websearch",
      "tool-group-memory",
      "tool-group-skills",
      "tool-group-mcp",
      "tool-group-plugin",
    ]);
    const memoryRow = wrapper.get('[data-testid="tool-group-memory"]').findAll('[data-testid="tool-row"]')[0];
    expect((memoryRow.get("select").element as HTMLSelectElement).value).toBe("ask");
    await memoryRow.get("select").setValue("never");
    expect(fake.callsTo("settings.update")).toEqual([{ tool_policies: { remember_memory: "never" } }]);
  });
});
