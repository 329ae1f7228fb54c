// Honest states (issue 25 item 5): denied calls look denied, Test connection shows its progress
// and the cause, a model id can be typed when a list fails, plurals are right.
import { afterEach, describe, expect, it } from "vitest";
import type { ConnectionTest, ModelRef, ProviderView } from "@/api/generated";
import ModelPicker from "@/components/chat/ModelPicker.vue";
import ToolCard from "@/components/chat/ToolCard.vue";
import ProviderRow from "@/components/settings/ProviderRow.vue";
import { translate } from "@/i18n";
import { buildTranscript, newAssistant, addToolCall, markAwaiting, markDenied, setToolResult } from "@/model/transcript";
import type { AssistantEntry, ToolView } from "@/model/transcript";
import { useProvidersStore } from "@/stores/providers";
import { message, turn } from "./helpers";
import { mountWith, tick } from "./mount";

const FOR_MODEL = "The user denied this tool call. Do not retry it; continue without it.";
const PROVIDER: ProviderView = { id: "p1", name: "Local", kind: "chat_completions", base_url: "http://127.0.0.1:9/v1", api_key: "", has_key: false, timeout_s: null, first_token_timeout_s: null, default_model: null, model_settings: [], parallel_requests: null, lean_tools: null, local: true };

afterEach(() => {
  document.body.innerHTML = "";
});

function toolOf(entry: AssistantEntry): ToolView {
  const part = entry.parts.find((p) => p.kind === "tool");
  if (!part || part.kind !== "tool") throw new Error("no tool part");
  return part.tool;
}

describe("a denied tool call", () => {
  it("stays denied when reloaded from history", () => {
    const entries = buildTranscript([
      message(1, "user", "write it"),
      message(2, "assistant", "", { tool_calls: [{ id: "c1", name: "write_file", arguments: "{}" }] }),
      message(3, "tool", FOR_MODEL, { tool_call_id: "c1", name: "write_file", tool_outcome: "denied" }),
      message(4, "assistant", "", { tool_calls: [{ id: "c2", name: "read_file", arguments: "{}" }] }),
      message(5, "tool", "Error: no such file", { tool_call_id: "c2", name: "read_file", tool_outcome: "error" }),
    ]);
    const tools = entries.flatMap((e) => (e.kind === "assistant" ? e.parts : [])).flatMap((p) => (p.kind === "tool" ? [p.tool.status] : []));
    expect(tools).toEqual(["denied", "error"]);
  });

  it("is denied live when the result says so (a policy refusal has no approval)", () => {
    const entry = newAssistant("t1");
    addToolCall(entry, { call_id: "c1", name: "exec", arguments: "{}" });
    const ev = turn("c", "t1").result("c1", false, FOR_MODEL);
    setToolResult(entry, { ...(ev as Extract<typeof ev, { type: "tool_result" }>), denied: true });
    expect(toolOf(entry).status).toBe("denied");
    const asked = newAssistant("t2");
    markAwaiting(asked, { call_id: "c2", tool: "exec" });
    markDenied(asked, "c2");
    setToolResult(asked, { ...(ev as Extract<typeof ev, { type: "tool_result" }>), call_id: "c2" });
    expect(toolOf(asked).status).toBe("denied");
  });

  it("shows Denied with its own icon and never the text meant for the model", async () => {
    const tool: ToolView = { callId: "c1", name: "write_file", arguments: "{}", status: "denied", output: FOR_MODEL, truncated: false, durationMs: 3 };
    const { wrapper } = await mountWith(ToolCard, { props: { tool } });
    const card = wrapper.get('[data-testid="tool-card"]');
    expect(card.classes()).toContain("tool-denied");
    expect(wrapper.get('[data-testid="tool-icon"]').text()).toBe("⊘");
    expect(wrapper.text()).toContain("Denied");
    expect(wrapper.text()).not.toContain("Done");
    await wrapper.get(".tool-head").trigger("click");
    expect(wrapper.text()).not.toContain("Do not retry");
    expect(wrapper.find('[data-testid="tool-output"]').exists()).toBe(false);
    expect(wrapper.get('[data-testid="tool-denied-note"]').text()).toBe("This call was denied, so it did not run.");
  });
});

describe("test connection", () => {
  it("disables itself, clears the old result, shows progress, then the cause of a timeout", async () => {
    let release: (r: ConnectionTest) => void = () => undefined;
    const ctx = await mountWith(ProviderRow, { props: { provider: PROVIDER, editing: false } });
    ctx.fake.on("providers.test", () => new Promise<ConnectionTest>((resolve) => (release = resolve)));
    const store = useProvidersStore();
    store.tests.p1 = { ok: true, message: "old", model_count: 2, code: null, timeout_s: null, params: {} };
    await tick();
    expect(ctx.wrapper.get('[data-testid="provider-test-result"]').text()).toBe("Connected: 2 models available.");
    const button = ctx.wrapper.get('[data-testid="provider-test"]');
    await button.trigger("click");
    await tick();
    expect(button.attributes("disabled")).toBeDefined();
    expect(button.find(".spinner").exists()).toBe(true);
    expect(ctx.wrapper.find('[data-testid="provider-test-result"]').exists()).toBe(false);
    release({ ok: false, message: "No answer from http://127.0.0.1:9/v1 within 5 s.", model_count: 0, code: "timeout", timeout_s: 5, params: {} });
    await tick();
    await tick();
    expect(button.attributes("disabled")).toBeUndefined();
    expect(ctx.wrapper.get('[data-testid="provider-test-result"]').text()).toBe(
      "No answer within 5 s. Check the address and that the server is running.",
    );
  });

  it("says 1 model in the singular", async () => {
    const ctx = await mountWith(ProviderRow, { props: { provider: PROVIDER, editing: false } });
    ctx.fake.on("providers.test", () => ({ ok: true, message: "", model_count: 1, code: null, timeout_s: null, params: {} }));
    await ctx.wrapper.get('[data-testid="provider-test"]').trigger("click");
    await tick();
    await tick();
    expect(ctx.wrapper.get('[data-testid="provider-test-result"]').text()).toBe("Connected: 1 model available.");
  });
});

describe("a model id typed by hand", () => {
  it("is offered for a provider whose model list failed and becomes the chosen model", async () => {
    const ctx = await mountWith(ModelPicker, { props: { groups: [], modelValue: null } });
    useProvidersStore().providers = [PROVIDER];
    await tick();
    const chosen: (ModelRef | null)[] = [];
    await ctx.wrapper.setProps({ "onUpdate:modelValue": (v: ModelRef | null) => chosen.push(v) });
    const select = ctx.wrapper.get('[data-testid="model-picker"]');
    await select.setValue("manual:p1");
    await tick();
    const input = ctx.wrapper.get('[data-testid="model-manual-input"]');
    expect(document.activeElement).toBe(input.element);
    await input.setValue("  qwen2.5:7b ");
    await ctx.wrapper.get('[data-testid="model-manual"]').trigger("submit");
    expect(chosen).toEqual([{ provider_id: "p1", model: "qwen2.5:7b" }]);
    await ctx.wrapper.setProps({ modelValue: chosen[0] });
    expect(ctx.wrapper.get('[data-testid="model-picker"]').text()).toContain("Local · qwen2.5:7b");
  });
});

describe("plurals", () => {
  it("are right in both languages", () => {
    expect(translate("en", "providers.modelCount", { count: 1 })).toBe("1 model");
    expect(translate("en", "providers.modelCount", { count: 2 })).toBe("2 models");
    expect(translate("en", "chatlist.messages", { count: 1 })).toBe("1 message");
    expect(translate("en", "mcp.toolCount", { count: 0 })).toBe("0 tools");
    expect(translate("en", "import.run", { count: 1 })).toBe("Import 1 item");
    expect(translate("zh-CN", "providers.modelCount", { count: 1 })).toBe("1 个模型");
    expect(translate("zh-CN", "providers.modelCount", { count: 2 })).toBe("2 个模型");
  });
});
