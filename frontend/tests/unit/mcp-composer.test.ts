import { afterEach, describe, expect, it } from "vitest";
import type { McpServerView } from "@/api/generated";
import { ApiError } from "@/api/transport";
import ChatComposer from "@/components/chat/ChatComposer.vue";
import { appendText, filledArguments, missingArguments, promptText } from "@/model/mcpPrompt";
import { mountWith, tick } from "./mount";

const REF = { sha256: "a".repeat(64), name: "rough · notes", mime: "text/markdown", size: 42, kind: "text" as const };

function server(name: string, status: McpServerView["status"]): McpServerView {
  return {
    name, display_name: name, description: "", transport: "stdio", source: "user", status, error: null, error_key: "", error_params: {}, tool_count: 1, diagnostics: [], url: "",
    headers: {}, command: "", args: [], env: {}, secret_env: [], argv: [], needs_confirmation: false, loader_env: [], editable: true, auth: "none", sandbox: false, network: false, sandbox_status: "",
  };
}

async function composer() {
  const ctx = await mountWith(ChatComposer, { props: { running: false, groups: [], model: null, chatId: "c1" } });
  const listed: string[] = [];
  const got: Record<string, string>[] = [];
  ctx.fake
    .on("mcp.servers.list", () => ({ servers: [server("rough", "connected"), server("idle", "disconnected")] }))
    .on("mcp.resources.list", ({ name }) => {
      listed.push(name);
      return { resources: [{ uri: "rough://notes", name: "notes", description: "", mime_type: "text/markdown" }] };
    })
    .on("mcp.prompts.list", () => ({
      prompts: [
        { name: "review", description: "Review", arguments: [{ name: "topic", description: "", required: true }, { name: "tone", description: "", required: false }] },
        { name: "hello", description: "", arguments: [] },
      ],
    }))
    .on("mcp.resources.attach", ({ uri }) => {
      if (uri !== "rough://notes") throw new ApiError("mcp.resources.attach", "invalid", "no");
      return { attachments: [REF] };
    })
    .on("mcp.prompts.get", ({ prompt, arguments: args }) => {
      got.push(args ?? {});
      return prompt === "hello"
        ? { description: "", messages: [{ role: "user", text: "Hello there" }] }
        : { description: "", messages: [{ role: "user", text: `Review ${args?.topic}` }, { role: "assistant", text: "Sure" }] };
    });
  return { ...ctx, listed, got };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await tick();
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("MCP prompt text", () => {
  it("keeps user text, marks other roles, and appends after typed text", () => {
    expect(promptText([{ role: "user", text: "A" }, { role: "assistant", text: "B" }, { role: "user", text: " " }])).toBe("A\n\n[assistant] B");
    expect(appendText("", "X")).toBe("X");
    expect(appendText("typed  \n", "X")).toBe("typed\n\nX");
    expect(missingArguments([{ name: "a", description: "", required: true }, { name: "b", description: "", required: false }], { a: " " })).toEqual(["a"]);
    expect(filledArguments({ a: "1", b: "" })).toEqual({ a: "1" });
  });
});

describe("composer MCP menu", () => {
  it("lists only connected servers and attaches a resource as a ready chip that is sent", async () => {
    const { wrapper: w, listed } = await composer();
    await w.get('[data-testid="mcp-menu-button"]').trigger("click");
    await settle();
    expect(listed).toEqual(["rough"]);
    await w.get('[data-testid="mcp-resource"]').trigger("click");
    await settle();
    expect(w.find('[data-testid="mcp-menu"]').exists()).toBe(false);
    const chip = w.get('[data-testid="attachment-chip"]');
    expect(chip.attributes("data-status")).toBe("ready");
    expect(chip.text()).toContain("rough · notes");
    await w.get('[data-testid="composer-input"]').setValue("use it");
    await w.get('[data-testid="send-button"]').trigger("submit");
    expect(w.emitted("send")).toEqual([["use it", [], [REF]]]);
  });

  it("asks for a prompt's arguments, then inserts its text after what is typed", async () => {
    const { wrapper: w, got } = await composer();
    const input = w.get('[data-testid="composer-input"]');
    await input.setValue("Context first");
    await w.get('[data-testid="mcp-menu-button"]').trigger("click");
    await settle();
    await w.get('[data-testid="mcp-tab-prompts"]').trigger("click");
    const prompts = w.findAll('[data-testid="mcp-prompt"]');
    expect(prompts.map((p) => p.text())).toEqual(["review Review", "hello"]);
    await prompts[0].trigger("click");
    await settle();
    const insert = w.get('[data-testid="mcp-prompt-insert"]');
    expect(insert.attributes("disabled")).toBeDefined(); // topic is required
    await w.get('[data-testid="mcp-arg-topic"]').setValue("the plan");
    await w.get('[data-testid="mcp-arg-topic"]').trigger("keydown", { key: "Enter" });
    await settle();
    expect(got).toEqual([{ topic: "the plan" }]); // the empty optional tone is left to the server
    expect((input.element as HTMLTextAreaElement).value).toBe("Context first\n\nReview the plan\n\n[assistant] Sure");
    expect(w.emitted("send")).toBeUndefined(); // inserting never sends
  });

  it("inserts a prompt without arguments at once, and Esc closes the menu", async () => {
    const { wrapper: w } = await composer();
    await w.get('[data-testid="mcp-menu-button"]').trigger("click");
    await settle();
    await w.get('[data-testid="mcp-menu"]').trigger("keydown", { key: "Escape" });
    expect(w.find('[data-testid="mcp-menu"]').exists()).toBe(false);
    await w.get('[data-testid="mcp-menu-button"]').trigger("click");
    await settle();
    await w.get('[data-testid="mcp-tab-prompts"]').trigger("click");
    await w.findAll('[data-testid="mcp-prompt"]')[1].trigger("click");
    await settle();
    expect((w.get('[data-testid="composer-input"]').element as HTMLTextAreaElement).value).toBe("Hello there");
  });

  it("says how to connect a server when none is connected", async () => {
    const ctx = await composer();
    ctx.fake.on("mcp.servers.list", () => ({ servers: [server("idle", "disconnected")] }));
    await ctx.wrapper.get('[data-testid="mcp-menu-button"]').trigger("click");
    await settle();
    expect(ctx.wrapper.get('[data-testid="mcp-menu-empty"]').text()).toContain("MCP Market");
  });
});
