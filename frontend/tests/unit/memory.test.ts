import { afterEach, describe, expect, it } from "vitest";
import type { MemoryDoc, MemoryItem, MemoryVersionItem } from "@/api/generated";
import { FakeTransport } from "@/api/fake";
import { ApiError } from "@/api/transport";
import ChatView from "@/views/ChatView.vue";
import MemoryView from "@/views/MemoryView.vue";
import { diffLines, dividerKey } from "@/model/diffLines";
import { parseQuery, parseTags } from "@/stores/memory";
import { NOW, message, summary, settingsView } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

const DOC: MemoryDoc = { text: "- old\n", hash: "h1", version_id: 2, path: "/data/MEMORY.md" };
const VERSIONS: MemoryVersionItem[] = [
  { id: 2, author: "dream", note: "from 1 chat(s)", created_at: NOW, diff: "--- a\n+++ b\n@@ -1 +1 @@\n-- first\n+- old\n", chars: 6 },
  { id: 1, author: "user", note: "", created_at: NOW, diff: "+- first\n", chars: 8 },
];
const ITEM: MemoryItem = { id: "0b6f3c1e-7d2a-4c1b-9a7e-2f5d8c9b1a00", content: "Prefers uv", tags: ["python"], created_at: NOW, updated_at: NOW, asked_by: "" };

function memoryBackend(): FakeTransport {
  return new FakeTransport()
    .on("memory.get", () => DOC)
    .on("memory.versions", () => ({ versions: VERSIONS }))
    .on("memory.revert", ({ version_id }) => ({ ...DOC, text: "- first\n", version_id: version_id + 10 }))
    .on("memory.save", ({ text }) => ({ ...DOC, text, version_id: 3 }))
    .on("memory.settings", () => ({ consolidation_chars: 40000, dream_enabled: true, dream_interval_minutes: 5, dream_review: true }))
    .on("dream.proposals", () => ({ proposals: [{ id: "p1", diff: "+- Has a cat\n", analysis: "ADD cat", status: "pending", created_at: NOW, lines: [] }] }))
    .on("dream.accept", () => DOC)
    .on("memories.list", () => ({ memories: [ITEM], more: false, total: 1 }))
    .on("memories.search", () => ({ memories: [], more: false, total: 1 }))
    .on("soul.get", () => ({ text: "You are Cash.", is_default: false, max_chars: 20000, notice: null }))
    .on("soul.save", () => {
      throw new ApiError("soul.save", "invalid", "SOUL.md is limited to 20000 characters (this text has 20001)");
    });
}

describe("memory helpers", () => {
  it("types diff lines for display", () => {
    expect(diffLines("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z\n").map((l) => l.kind)).toEqual(["meta", "meta", "hunk", "del", "add", "same"]);
  });

  it("puts the divider before the entry holding keep_from_cursor", () => {
    const keys = ["u-1", "a-t1-2", "u-5", "a-t3-6", "u-9"];
    expect(dividerKey(keys, 5)).toBe("u-5");
    expect(dividerKey(keys, 7)).toBe("a-t3-6");
    expect(dividerKey(["u-8", "a-t-9"], 3)).toBeNull();
  });

  it("splits search words, #tags and tag lists", () => {
    expect(parseQuery(" uv  #python sync #")).toEqual({ words: ["uv", "sync", "#"], tags: ["python"] });
    expect(parseTags("a, b  c")).toEqual(["a", "b", "c"]);
  });
});

describe("MemoryView", () => {
  it("shows MEMORY.md, the inbox and versions, and reverts", async () => {
    const fake = memoryBackend();
    const { wrapper } = await mountWith(MemoryView, { fake, path: "/memory" });
    await tick();
    await tick();
    expect((wrapper.get("[data-testid=memory-editor]").element as HTMLTextAreaElement).value).toBe("- old\n");
    expect(wrapper.get("[data-testid=memory-inbox]").text()).toContain("+- Has a cat");
    expect(wrapper.findAll("[data-testid=memory-version]")).toHaveLength(2);
    await wrapper.get("[data-testid=proposal-accept]").trigger("click");
    await tick();
    expect(fake.callsTo("dream.accept")).toEqual([{ id: "p1" }]);
    await wrapper.get("[data-testid=memory-revert]").trigger("click");
    await tick();
    await tick();
    expect(fake.callsTo("memory.revert")).toEqual([{ version_id: 1 }]);
    expect((wrapper.get("[data-testid=memory-editor]").element as HTMLTextAreaElement).value).toBe("- first\n");
  });

  it("switches to an own-memory agent's MEMORY.md and versions, and reverts there (issue 38)", async () => {
    const own = (id: string, memory: "own" | "shared") => ({
      id, builtin: false, created_at: "", updated_at: "",
      spec: {
        name: `Agent ${id}`, emoji: "", persona: "", provider_id: null, model: null, skills: null, mcp_servers: null,
        knowledge_bases: null, tools: null, approval_mode: null, workspace: null, memory,
      },
    });
    const AGENT_DOC: MemoryDoc = { text: "- agent fact\n", hash: "h9", version_id: 7, path: "/data/agents/a1/MEMORY.md" };
    const fake = memoryBackend()
      .on("agents.list", () => ({ agents: [own("a1", "own"), own("a2", "shared")], last_used: "default" }))
      .on("memory.get", (req) => (req.agent_id === "a1" ? AGENT_DOC : DOC))
      .on("memory.versions", (req) => ({ versions: req.agent_id === "a1" ? [VERSIONS[1]] : VERSIONS }))
      .on("memory.revert", (req) => ({ ...AGENT_DOC, text: "- first\n", version_id: 8, path: req.agent_id ?? "" }));
    const { wrapper, router } = await mountWith(MemoryView, { fake, path: "/memory" });
    await tick();
    await tick();
    const picker = wrapper.get("[data-testid=memory-owner]");
    expect(picker.findAll("option").map((o) => o.text())).toEqual(["Shared", "Agent a1 (own memory)"]);
    await picker.setValue("a1");
    await tick();
    await tick();
    await tick();
    expect(router.currentRoute.value.query.of).toBe("a1");
    expect((wrapper.get("[data-testid=memory-editor]").element as HTMLTextAreaElement).value).toBe("- agent fact\n");
    expect(wrapper.find("[data-testid=memory-inbox]").exists()).toBe(false); // Dream's inbox is the shared memory's
    expect(wrapper.find("[data-testid=memory-tab-soul]").exists()).toBe(false);
    expect(wrapper.findAll("[data-testid=memory-version]")).toHaveLength(1);
    await wrapper.get("[data-testid=memory-revert]").trigger("click");
    await tick();
    expect(fake.callsTo("memory.revert")).toEqual([{ agent_id: "a1", version_id: 1 }]);
  });

  it("saves an edit with the hash it was based on", async () => {
    const fake = memoryBackend();
    const { wrapper } = await mountWith(MemoryView, { fake, path: "/memory" });
    await tick();
    await tick();
    await wrapper.get("[data-testid=memory-editor]").setValue("- new\n");
    await wrapper.get("[data-testid=memory-save]").trigger("click");
    await tick();
    expect(fake.callsTo("memory.save")).toEqual([{ text: "- new\n", base_hash: "h1" }]);
  });

  it("searches explicit memories with words and tags", async () => {
    const fake = memoryBackend();
    const { wrapper } = await mountWith(MemoryView, { fake, path: "/memory?tab=memories" });
    await tick();
    expect(wrapper.findAll("[data-testid=memory-item]")).toHaveLength(1);
    await wrapper.get("[data-testid=memories-search]").setValue("uv #python");
    await wrapper.get("[data-testid=memories-tags]").setValue("tooling");
    await wrapper.get("form.memory-search").trigger("submit");
    await tick();
    expect(fake.callsTo("memories.search")).toEqual([{ words: ["uv"], tags: ["python", "tooling"] }]);
    expect(wrapper.findAll("[data-testid=memory-item]")).toHaveLength(0);
  });

  it("shows a clear error when SOUL.md is too long", async () => {
    const fake = memoryBackend();
    const { wrapper } = await mountWith(MemoryView, { fake, path: "/memory?tab=soul" });
    await tick();
    await wrapper.get("[data-testid=soul-editor]").setValue("x".repeat(20001));
    expect(wrapper.get("[data-testid=soul-count]").classes()).toContain("form-error");
    await wrapper.get("[data-testid=soul-save]").trigger("click");
    await tick();
    expect(wrapper.get("[data-testid=soul-error]").text()).toContain("limited to 20000 characters");
  });
});

describe("consolidation divider", () => {
  it("marks where the summary begins and opens to show it", async () => {
    const id = "c1";
    const fake = new FakeTransport()
      .on("chats.list", () => ({ chats: [summary(id)], next_before: null }))
      .on("chats.get", () => ({
        chat: summary(id),
        messages: [message(1, "user", "first"), message(2, "assistant", "one"), message(3, "user", "second"), message(4, "assistant", "two")],
        has_more: false,
        viewing: null,
      }))
      .on("memory.summaries", () => ({
        latest: { id: 1, chat_id: id, content: "The user said first.", keep_from_cursor: 3, created_at: NOW },
        count: 1,
        running: false,
      }))
      .on("providers.list", () => ({ providers: [] }))
      .on("settings.get", () => settingsView());
    const { wrapper } = await mountWith(ChatView, { fake, path: `/chat/${id}` });
    await tick();
    await tick();
    const divider = wrapper.get("[data-testid=summary-divider]");
    const list = wrapper.get(".message-list").element;
    const text = list.textContent ?? "";
    expect(text.indexOf("first")).toBeLessThan(text.indexOf("summarised")); // after the folded part
    expect(text.indexOf("summarised")).toBeLessThan(text.indexOf("second"));
    expect(divider.text()).not.toContain("The user said first.");
    await divider.get("button").trigger("click");
    expect(wrapper.get("[data-testid=summary-divider]").text()).toContain("The user said first.");
  });
});
