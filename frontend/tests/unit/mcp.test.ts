import { afterEach, describe, expect, it } from "vitest";
import type { AppEvent, McpServerCreate, McpServerView } from "@/api/generated";
import { FakeTransport } from "@/api/fake";
import { ApiError } from "@/api/transport";
import McpRegistryList from "@/components/mcp/McpRegistryList.vue";
import { MASK, draftFrom, sendsPlainHttpAuth, toPayload } from "@/model/mcpForm";
import { useSettingsStore } from "@/stores/settings";
import McpView from "@/views/McpView.vue";
import { settingsView } from "./helpers";
import { mountWith, tick } from "./mount";

function view(over: Partial<McpServerView>): McpServerView {
  return {
    name: "test_stdio_mcp", display_name: "stdio test MCP", description: "", transport: "stdio", source: "builtin",
    status: "disconnected", error: null, error_key: "", error_params: {}, tool_count: 0, diagnostics: [], url: "", headers: {}, command: "/py", args: ["server.py"], env: {},
    secret_env: [], argv: ["/py", "server.py"], needs_confirmation: false, loader_env: [], editable: false, auth: "none", sandbox: false, network: false, sandbox_status: "", ...over,
  };
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("mcp form logic", () => {
  it("shows secrets as the mask and sends the mask back to keep them", () => {
    const d = draftFrom(view({ transport: "http", url: "https://x/mcp", headers: { Authorization: MASK }, source: "user" }));
    expect(d.headers).toBe(`Authorization: ${MASK}`);
    expect(toPayload(d).headers).toEqual({ Authorization: MASK });
  });

  it("keeps arguments verbatim (no shell parsing) and rejects a line without a value", () => {
    const d = { ...draftFrom(null), name: "x", command: "npx", args: "-y\npkg name with spaces", env: "A=1\nTOKEN=s" , secretEnv: "TOKEN" };
    expect(toPayload(d)).toMatchObject({ args: ["-y", "pkg name with spaces"], env: { A: "1", TOKEN: "s" }, secret_env: ["TOKEN"] });
    expect(() => toPayload({ ...d, env: "NOVALUE" })).toThrow("NOVALUE");
  });
});

describe("plain-http Authorization", () => {
  const d = { ...draftFrom(null), name: "x", transport: "http" as const, headers: "Authorization: Bearer t" };
  it("is asked for only over http:// to another computer, with an Authorization header", () => {
    expect(sendsPlainHttpAuth({ ...d, url: "http://10.0.0.5/mcp" })).toBe(true);
    expect(sendsPlainHttpAuth({ ...d, url: "http://10.0.0.5/mcp", headers: "proxy-authorization: x" })).toBe(true);
    expect(sendsPlainHttpAuth({ ...d, url: "https://10.0.0.5/mcp" })).toBe(false);
    expect(sendsPlainHttpAuth({ ...d, url: "http://127.0.0.1:9000/mcp" })).toBe(false);
    expect(sendsPlainHttpAuth({ ...d, url: "http://localhost/mcp" })).toBe(false);
    expect(sendsPlainHttpAuth({ ...d, url: "http://[::1]/mcp" })).toBe(false);
    expect(sendsPlainHttpAuth({ ...d, url: "http://10.0.0.5/mcp", headers: "X-Trace: t" })).toBe(false);
  });
  it("asks the same for any credential header (issue 33 item 15)", () => {
    for (const headers of ["X-Api-Key: k", "Cookie: s=1", "X-Auth-Token: t", "X-Key: t"]) {
      expect(sendsPlainHttpAuth({ ...d, url: "http://10.0.0.5/mcp", headers })).toBe(true);
      expect(sendsPlainHttpAuth({ ...d, url: "https://10.0.0.5/mcp", headers })).toBe(false);
    }
  });
  it("sends the confirmation only when it applies", () => {
    expect(toPayload({ ...d, url: "http://10.0.0.5/mcp", allowPlainHttpAuth: true })).toMatchObject({ allow_plain_http_auth: true });
    expect(toPayload({ ...d, url: "https://h/mcp", allowPlainHttpAuth: true })).not.toHaveProperty("allow_plain_http_auth");
  });
});

describe("MCP Market view", () => {
  async function market(servers: McpServerView[]) {
    const ctx = await mountWith(McpView, { path: "/mcp" });
    const created: McpServerCreate[] = [];
    ctx.fake
      .on("mcp.servers.list", () => ({ servers }))
      .on("mcp.servers.connect", ({ name }) => {
        if (name === "broken") throw new ApiError("mcp.servers.connect", "provider_error", "the command 'nope' was not found");
        return { ...servers.find((s) => s.name === name)!, status: "connected", tool_count: 1 };
      })
      .on("mcp.servers.create", (p) => {
        created.push(p);
        return view({ name: p.name, source: "user", editable: true, needs_confirmation: true, transport: "stdio" });
      })
      .on("mcp.servers.tools", () => ({
        live: true,
        tools: [{ name: "say_hello", description: "Say hello", input_schema: {}, exposed_name: "mcp_x_say_hello", read_only_hint: true, policy: "ask", diagnostic: null, app_uri: null, visibility: ["model", "app"], app_domains: [], app_permissions: [] }],
      }))
      .on("mcp.tools.set_policy", () => ({ ok: true }))
      .on("mcp.servers.import_preview", () => ({ items: [
        { name: "good", ok: true, error: null, exists: false, server: view({ name: "good", source: "user" }) },
        { name: "bad", ok: false, error: "unknown transport 'x'", exists: false, server: null },
      ] }))
      .on("mcp.servers.import", () => ({ created: ["good"], skipped: [] }));
    // the view loaded before the handlers existed: load again
    const { useMcpStore } = await import("@/stores/mcp");
    await useMcpStore().load();
    await tick();
    return { ...ctx, created };
  }

  it("lists servers, connects one and follows live status events", async () => {
    const { wrapper, fake } = await market([view({})]);
    const row = wrapper.get('[data-testid="mcp-row"]');
    expect(row.attributes("data-status")).toBe("disconnected");
    await row.get('[data-testid="mcp-connect"]').trigger("click");
    await tick();
    expect(fake.callsTo("mcp.servers.connect")).toEqual([{ name: "test_stdio_mcp" }]);
    expect(wrapper.get('[data-testid="mcp-row"]').attributes("data-status")).toBe("connected");
    const stopped = { error: "the server stopped: exit 1", error_key: "mcp.stopped", error_params: { reason: "exit 1" } };
    fake.emit([{ type: "mcp_server_status", name: "test_stdio_mcp", status: "failed", tool_count: 0, ...stopped }]);
    await tick();
    expect(wrapper.get('[data-testid="mcp-row"]').attributes("data-status")).toBe("failed");
    expect(wrapper.get('[data-testid="mcp-error"]').text()).toContain("the server stopped: exit 1");
    // The same failure in the Chinese UI, worded from its key (issue 25 item 6).
    useSettingsStore().view = settingsView({ language: "zh-CN" });
    await tick();
    expect(wrapper.get('[data-testid="mcp-error"]').text()).toContain("服务器已停止：exit 1");
  });

  it("words a server installed from the catalog in the UI language while its text is the entry's", async () => {
    const fs = { en: "Read, search, create and edit files inside the folders you allow.", zh_cn: "在你允许的文件夹中读取、搜索、创建和编辑文件。" };
    const installed = view({ name: "filesystem", display_name: "Filesystem", description: fs.en, source: "user" });
    const edited = view({ name: "fetch", display_name: "Fetch", description: "My own words", source: "user" });
    const { wrapper, fake } = await market([installed, edited]);
    const entry = (id: string, title: string, zh: string, description: { en: string; zh_cn: string }) => ({
      id, title: { en: title, zh_cn: zh }, description, transport: "stdio" as const, registry: "npm" as const,
      package: id, version: "1", read_only: false, inputs: [], installed: true, problem: "",
    });
    fake.on("mcp_catalog.list", () => ({
      servers: [entry("filesystem", "Filesystem", "文件系统", fs), entry("fetch", "Fetch", "网页抓取", { en: "Fetch pages", zh_cn: "抓取网页" })],
      node_version: "22", node_problem: "",
    }));
    const { useMcpCatalogStore } = await import("@/stores/mcpCatalog");
    await useMcpCatalogStore().load();
    useSettingsStore().view = settingsView({ language: "zh-CN" });
    await tick();
    const row = (name: string) => wrapper.get(`[data-testid="mcp-row"][data-name="${name}"]`);
    expect(row("filesystem").text()).toContain("文件系统");
    expect(row("filesystem").text()).toContain(fs.zh_cn);
    // Text the user changed is theirs: shown as written.
    expect(row("fetch").text()).toContain("My own words");
    // A search that hides the entry keeps the row's Chinese.
    fake.on("mcp_catalog.list", () => ({ servers: [], node_version: "22", node_problem: "" }));
    await useMcpCatalogStore().load("nothing");
    await tick();
    expect(row("filesystem").text()).toContain(fs.zh_cn);
    useSettingsStore().view = settingsView({ language: "en" });
    await tick();
    expect(row("filesystem").text()).toContain(fs.en);
  });

  it("calls out loader variables of an unconfirmed launch", async () => {
    const { wrapper } = await market([
      view({ name: "evil", source: "user", editable: true, needs_confirmation: true, loader_env: ["LD_PRELOAD"] }),
    ]);
    expect(wrapper.get('[data-testid="mcp-loader-env"]').text()).toContain("LD_PRELOAD");
  });

  it("the confirm step checks the server's Apps on request and lists what they declare", async () => {
    const { wrapper, fake } = await market([view({ name: "apps", source: "user", editable: true, needs_confirmation: true })]);
    fake.on("mcp.servers.apps_preview", () => ({
      state: "listed", reason: "", tool_count: 3,
      apps: [{
        tool: "show_probe", uri: "ui://probe/page.html", visibility: ["app"], connect_domains: ["http://127.0.0.1:9"], resource_domains: [],
        frame_domains: [], base_uri_domains: [], permissions: [], dropped: [], page_read: true,
      }],
    }));
    expect(fake.callsTo("mcp.servers.apps_preview")).toHaveLength(0); // not on render: it starts the server
    await wrapper.get('[data-testid="mcp-apps-check"]').trigger("click");
    await tick();
    expect(fake.callsTo("mcp.servers.apps_preview")).toEqual([{ name: "apps" }]);
    const item = wrapper.get('[data-testid="mcp-apps-preview-item"]');
    expect(item.text()).toContain("may reach: http://127.0.0.1:9 · asks for: nothing");
    expect(item.text()).toContain("App only");
  });

  it("shows a failed connect with a retry button", async () => {
    const { wrapper, fake } = await market([view({ name: "broken", source: "user", editable: true })]);
    await wrapper.get('[data-testid="mcp-connect"]').trigger("click");
    await tick();
    expect(wrapper.get('[data-testid="mcp-error"]').text()).toContain("was not found");
    await wrapper.get('[data-testid="mcp-retry"]').trigger("click");
    await tick();
    expect(fake.callsTo("mcp.servers.connect")).toHaveLength(2);
  });

  it("shows the sign-in apart from the connection and signs out", async () => {
    const remote = view({ name: "remote", source: "user", editable: true, transport: "http", url: "https://x/mcp", auth: "expired" });
    const { wrapper, fake } = await market([remote, view({})]);
    fake.on("mcp.servers.sign_out", ({ name }) => ({ ...remote, name, auth: "signed_out", status: "disconnected" }));
    const rows = wrapper.findAll('[data-testid="mcp-row"]');
    expect(rows[0].get('[data-testid="mcp-auth"]').text()).toContain("Sign-in expired");
    expect(rows[0].attributes("data-status")).toBe("disconnected");
    expect(rows[1].find('[data-testid="mcp-auth"]').exists()).toBe(false); // no OAuth: no badge
    await rows[0].get('[data-testid="mcp-sign-out"]').trigger("click");
    await tick();
    expect(fake.callsTo("mcp.servers.sign_out")).toEqual([{ name: "remote" }]);
    const row = wrapper.findAll('[data-testid="mcp-row"]')[0];
    expect(row.get('[data-testid="mcp-auth"]').attributes("data-auth")).toBe("signed_out");
    expect(row.find('[data-testid="mcp-sign-out"]').exists()).toBe(false);
  });

  it("adds a stdio server that then asks for confirmation", async () => {
    const { wrapper, created } = await market([]);
    await wrapper.get('[data-testid="mcp-add"]').trigger("click");
    await wrapper.get('[data-testid="mcp-form-name"]').setValue("mine");
    await wrapper.get('[data-testid="mcp-form-command"]').setValue("npx");
    await wrapper.get('[data-testid="mcp-form-args"]').setValue("-y\nsome-server");
    await wrapper.get('[data-testid="mcp-form"]').trigger("submit");
    await tick();
    expect(created).toEqual([expect.objectContaining({ name: "mine", transport: "stdio", command: "npx", args: ["-y", "some-server"] })]);
    expect(wrapper.find('[data-testid="mcp-confirm"]').exists()).toBe(true);
  });

  it("sends the per-server sandbox and network toggles, and says TCP is filtered by port, not host", async () => {
    const { wrapper, created } = await market([]);
    await wrapper.get('[data-testid="mcp-add"]').trigger("click");
    await wrapper.get('[data-testid="mcp-form-name"]').setValue("boxed");
    await wrapper.get('[data-testid="mcp-form-command"]').setValue("uvx");
    const network = wrapper.get('[data-testid="mcp-form-network"]');
    expect((network.element as HTMLInputElement).disabled).toBe(true); // only for a sandboxed server
    await wrapper.get('[data-testid="mcp-form-sandbox"]').setValue(true);
    expect((network.element as HTMLInputElement).disabled).toBe(false);
    expect(wrapper.text()).toContain("filters TCP by port, not by host");
    await network.setValue(true);
    await wrapper.get('[data-testid="mcp-form"]').trigger("submit");
    await tick();
    expect(created).toEqual([expect.objectContaining({ name: "boxed", sandbox: true, network: true })]);
  });

  it("edits a sandboxed server: the toggles start from the server and the update carries them", async () => {
    const boxed = view({ name: "timey", source: "user", editable: true, sandbox: true, network: true, sandbox_status: "sandboxed, network allowed (any host)" });
    const { wrapper, fake } = await market([boxed]);
    const updated: McpServerCreate[] = [];
    fake.on("mcp.servers.update", (p) => {
      updated.push(p as McpServerCreate);
      return { ...boxed, sandbox: p.sandbox ?? boxed.sandbox, network: p.network ?? boxed.network };
    });
    await wrapper.get('[data-testid="mcp-edit"]').trigger("click");
    expect((wrapper.get('[data-testid="mcp-form-sandbox"]').element as HTMLInputElement).checked).toBe(true);
    expect((wrapper.get('[data-testid="mcp-form-network"]').element as HTMLInputElement).checked).toBe(true);
    expect(wrapper.get('[data-testid="mcp-form-sandbox-hint"]').text()).toContain("network allowed (any host)");
    await wrapper.get('[data-testid="mcp-form-network"]').setValue(false);
    await wrapper.get('[data-testid="mcp-form"]').trigger("submit");
    await tick();
    expect(updated).toEqual([expect.objectContaining({ name: "timey", sandbox: true, network: false })]);
    // the Chinese form says the same
    useSettingsStore().view = settingsView({ language: "zh-CN" });
    await wrapper.get('[data-testid="mcp-edit"]').trigger("click");
    expect(wrapper.text()).toContain("按端口而不是按主机过滤 TCP");
  });

  it("asks before an Authorization header goes over plain http:// to another computer", async () => {
    const { wrapper, created } = await market([]);
    await wrapper.get('[data-testid="mcp-add"]').trigger("click");
    await wrapper.get('[data-testid="mcp-form-name"]').setValue("lan");
    await wrapper.get('[data-testid="mcp-form-transport"]').setValue("http");
    await wrapper.get('[data-testid="mcp-form-url"]').setValue("http://192.168.1.20:8080/mcp");
    expect(wrapper.find('[data-testid="mcp-form-plain-auth"]').exists()).toBe(false); // no header yet
    await wrapper.get('[data-testid="mcp-form-headers"]').setValue("Authorization: Bearer abc");
    expect(wrapper.get('[data-testid="mcp-form-plain-auth"]').text()).toContain("unencrypted");
    await wrapper.get('[data-testid="mcp-form-plain-auth-check"]').setValue(true);
    await wrapper.get('[data-testid="mcp-form"]').trigger("submit");
    await tick();
    expect(created).toEqual([expect.objectContaining({ name: "lan", url: "http://192.168.1.20:8080/mcp", allow_plain_http_auth: true })]);
  });

  it("previews a pasted snippet, then imports the valid servers", async () => {
    const { wrapper, fake } = await market([]);
    await wrapper.get('[data-testid="mcp-open-import"]').trigger("click");
    await wrapper.get('[data-testid="mcp-import-text"]').setValue('{"mcpServers": {}}');
    await wrapper.get('[data-testid="mcp-import-preview"]').trigger("click");
    await tick();
    expect(wrapper.get('[data-testid="mcp-import-items"]').text()).toContain("unknown transport");
    await wrapper.get('[data-testid="mcp-import-save"]').trigger("click");
    await tick();
    expect(fake.callsTo("mcp.servers.import")).toEqual([{ text: '{"mcpServers": {}}', names: ["good"] }]);
  });

  it("shows tools with the read-only hint and sets a per-tool policy", async () => {
    const { wrapper, fake } = await market([view({ status: "connected", tool_count: 1 })]);
    await wrapper.get('[data-testid="mcp-details"]').trigger("click");
    await tick();
    const row = wrapper.get('[data-testid="mcp-tool-row"]');
    expect(row.text()).toContain("say_hello");
    expect(row.text()).toContain("says read-only");
    await row.get('[data-testid="mcp-tool-policy"]').setValue("always");
    await tick();
    expect(fake.callsTo("mcp.tools.set_policy")).toEqual([{ server: "test_stdio_mcp", tool: "say_hello", policy: "always" }]);
  });

  it("names the tools a listing skipped (a malformed input schema)", async () => {
    const note = "skipped tool 'broken': its input schema is a number, not an object";
    const { wrapper } = await market([view({ status: "connected", tool_count: 1, diagnostics: [note] })]);
    await wrapper.get('[data-testid="mcp-details"]').trigger("click");
    await tick();
    expect(wrapper.get('[data-testid="mcp-server-diagnostics"]').text()).toContain(note);
  });
});

describe("MCP progress on the tool card", () => {
  it("shows the latest progress or log line on the running card of that tool", async () => {
    const { setup, turn } = await import("./helpers");
    const { chats } = setup();
    const t = turn("c1", "t1");
    const progress = (message: string, progress: number | null, kind: "progress" | "log" = "progress"): AppEvent => ({
      type: "mcp_tool_progress", chat_id: "c1", turn_id: "t1", tool: "read_file", server: "fs", kind, message, progress, total: 3,
    });
    chats.applyBatch([t.started(), t.tool("k1"), progress("step 1", 1), progress("[info] starting", null, "log")]);
    const card = () => chats.entries("c1").flatMap((e) => (e.kind === "assistant" ? e.parts : [])).find((p) => p.kind === "tool");
    expect(card()?.kind === "tool" && card()?.tool.note).toBe("[info] starting");
    chats.applyBatch([progress("step 2", 2)]);
    expect(card()?.kind === "tool" && card()?.tool.note).toBe("step 2 · 2/3");
    // every line is kept (newest last) for the open card; another chat's or turn's are not
    const other = (chat: string, turnId: string): AppEvent => ({
      type: "mcp_tool_progress", chat_id: chat, turn_id: turnId, tool: "read_file", server: "fs", kind: "log", message: "elsewhere", progress: null, total: null,
    });
    chats.applyBatch([other("c2", "t1"), other("c1", "t0")]);
    expect(card()?.kind === "tool" && card()?.tool.lines).toEqual(["step 1 · 1/3", "[info] starting", "step 2 · 2/3"]);
    const tool = card();
    if (tool?.kind !== "tool") throw new Error("no tool card");
    const ToolCard = (await import("@/components/chat/ToolCard.vue")).default;
    const { wrapper } = await mountWith(ToolCard, { props: { tool: tool.tool } });
    expect(wrapper.get('[data-testid="tool-note"]').text()).toBe("step 2 · 2/3");
    await wrapper.get(".tool-head").trigger("click");
    expect(wrapper.findAll('[data-testid="tool-lines"] li').map((li) => li.text())).toEqual(["step 1 · 1/3", "[info] starting", "step 2 · 2/3"]);
  });
});

describe("MCP elicitation dialog", () => {
  it("renders the server's form with defaults and sends the answer", async () => {
    const Dialog = (await import("@/components/mcp/McpElicitationDialog.vue")).default;
    const { wrapper, fake } = await mountWith(Dialog);
    fake.on("mcp.elicitation.answer", () => ({ ok: true }));
    fake.emit([{
      type: "mcp_elicitation", id: "e1", server: "rough", chat_id: "", turn_id: "", tool: "", message: "Who should I greet?", closed: false, outcome: null,
      requested_schema: { type: "object", properties: { name: { type: "string" }, age: { type: "integer", default: 30 } }, required: ["name"] },
      defaults: { age: 30 },
    }]);
    await tick();
    expect(wrapper.get('[data-testid="mcp-elicitation"]').text()).toContain("Who should I greet?");
    expect((wrapper.get('[data-testid="elicit-field-age"]').element as HTMLInputElement).value).toBe("30");
    await wrapper.get('[data-testid="elicit-field-name"]').setValue("Ann");
    await wrapper.get('[data-testid="mcp-elicitation"]').trigger("submit");
    await tick();
    expect(fake.callsTo("mcp.elicitation.answer")).toEqual([{ id: "e1", action: "accept", content: { name: "Ann", age: 30 } }]);
    expect(wrapper.find('[data-testid="mcp-elicitation"]').exists()).toBe(false);
  });
});

describe("MCP Registry address", () => {
  it("keeps an address typed while the saved settings were still loading", async () => {
    let release: () => void = () => {};
    const loaded = new Promise<void>((resolve) => (release = resolve));
    const unset = { registry_url: "", saved_url: "", from_env: false, env_var: "CASHCODE_MCP_REGISTRY_URL" };
    const fake = new FakeTransport()
      .on("mcp_catalog.registry.settings", async () => {
        await loaded; // slow: the user types first
        return unset;
      })
      .on("mcp_catalog.registry.save_settings", ({ registry_url }) => ({ ...unset, registry_url: registry_url ?? "", saved_url: registry_url ?? "" }))
      .on("mcp_catalog.registry.search", () => ({ state: "unset", base_url: "", notice: "", fetched_at: 0, servers: [], next_cursor: "", skipped: [] }));
    const { wrapper } = await mountWith(McpRegistryList, { fake });
    await wrapper.get('[data-testid="mcp-registry-url"]').setValue("http://127.0.0.1:9/registry");
    release();
    await tick();
    await tick();
    expect((wrapper.get('[data-testid="mcp-registry-url"]').element as HTMLInputElement).value).toBe("http://127.0.0.1:9/registry");
    await wrapper.get("form.mcp-registry-url").trigger("submit");
    await tick();
    expect(fake.callsTo("mcp_catalog.registry.save_settings")).toEqual([{ registry_url: "http://127.0.0.1:9/registry" }]);
  });
});
