import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { AgentView, SkillItem } from "@/api/generated";
import ChatComposer from "@/components/chat/ChatComposer.vue";
import { useAgentsStore } from "@/stores/agents";
import { useChatsStore } from "@/stores/chats";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

function skill(name: string): SkillItem {
  return {
    name, display_name: name, description: `${name} helper`, source: "user", version: null, tags: [],
    enabled: true, selectable: true, writable: true, sha256: "a".repeat(64), path: "~", shadows: [], shadowed_by: null,
    missing: [], warnings: [], score: null,
  };
}

function agent(id: string, skills: string[] | null, mcp: string[] | null): AgentView {
  return {
    id, builtin: id === "default", created_at: "", updated_at: "",
    spec: {
      name: id, emoji: "", persona: "", provider_id: null, model: null, skills, mcp_servers: mcp, knowledge_bases: null,
      tools: null, approval_mode: null, workspace: null, memory: "shared",
    },
  };
}

describe("the @-picker follows the chat's agent (issue 38)", () => {
  it("offers only the agent's Skills and MCP servers", async () => {
    const fake = new FakeTransport();
    fake.on("skills.list", () => {
      const items = ["alpha-notes", "beta-travel"].map(skill);
      return { items, total: items.length, page: 1, page_size: 30, invalid: [] };
    });
    (fake.handlers as Record<string, unknown>)["mcp.servers.list"] = () => ({
      servers: [{ name: "alpha_mcp", display_name: "Alpha" }, { name: "beta_mcp", display_name: "Beta" }],
    });
    fake.on("agents.list", () => ({ agents: [agent("default", null, null), agent("a1", ["alpha-notes"], ["alpha_mcp"])], last_used: "a1" }));
    const { wrapper } = await mountWith(ChatComposer, { fake, props: { running: false, groups: [], model: null, chatId: "c1" } });
    const chats = useChatsStore();
    chats.applyBatch([{ type: "session_updated", chat_id: "c1", title: "", updated_at: "2026-12-01T00:00:00Z" }]);
    chats.setAgent("c1", "a1");
    chats.currentId = "c1";
    await useAgentsStore().load();
    const input = wrapper.get('[data-testid="composer-input"]');
    await input.setValue("@");
    (input.element as HTMLTextAreaElement).setSelectionRange(1, 1);
    await input.trigger("input");
    await tick();
    await tick();
    await input.trigger("keydown", { key: "Enter" }); // Skills
    await tick();
    expect(wrapper.find('[data-testid="mention-option-alpha-notes"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="mention-option-beta-travel"]').exists()).toBe(false);
    await input.trigger("keydown", { key: "Backspace" }); // back to the categories
    await tick();
    await input.trigger("keydown", { key: "ArrowDown" });
    await input.trigger("keydown", { key: "Enter" }); // MCP servers
    await tick();
    expect(wrapper.find('[data-testid="mention-option-alpha_mcp"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="mention-option-beta_mcp"]').exists()).toBe(false);
  });
});
