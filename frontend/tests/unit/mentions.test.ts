import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { SkillItem } from "@/api/generated";
import ChatComposer from "@/components/chat/ChatComposer.vue";
import UserMessage from "@/components/chat/UserMessage.vue";
import { buildTranscript } from "@/model/transcript";
import { message } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

function skill(name: string, selectable = true): SkillItem {
  return {
    name, display_name: name.toUpperCase(), description: `${name} helper`, source: "user", version: null, tags: [],
    enabled: true, selectable, writable: true, sha256: "a".repeat(64), path: "~", shadows: [], shadowed_by: null,
    missing: [], warnings: [], score: null,
  };
}

function fakeWith(names: string[], mcp = true): FakeTransport {
  const fake = new FakeTransport();
  fake.on("skills.list", (q) => {
    const items = names.filter((n) => !q.query || n.includes(q.query)).map((n) => skill(n));
    return { items, total: items.length, page: 1, page_size: 30, invalid: [] };
  });
  if (mcp) {
    (fake.handlers as Record<string, unknown>)["mcp.servers.list"] = () => ({
      servers: [{ name: "github", display_name: "GitHub", description: "Issues" }],
    });
  }
  return fake;
}

async function composer(fake: FakeTransport) {
  const { wrapper } = await mountWith(ChatComposer, { fake, props: { running: false, groups: [], model: null, chatId: "c1" } });
  return wrapper;
}

async function typeAt(w: Awaited<ReturnType<typeof composer>>, value: string): Promise<void> {
  const input = w.get('[data-testid="composer-input"]');
  await input.setValue(value);
  (input.element as HTMLTextAreaElement).setSelectionRange(value.length, value.length);
  await input.trigger("input");
  await tick();
  await tick();
}

describe("@-mentions", () => {
  it("@ opens a two-level picker; picks become chips sent as metadata, not text", async () => {
    const w = await composer(fakeWith(["pdf-tools", "docx"]));
    const input = w.get('[data-testid="composer-input"]');
    await typeAt(w, "please @");
    expect(w.find('[data-testid="mention-category-skill"]').exists()).toBe(true);
    expect(w.find('[data-testid="mention-category-mcp"]').exists()).toBe(true);
    await input.trigger("keydown", { key: "Enter" }); // level 1: Skills
    await tick();
    expect(w.find('[data-testid="mention-option-pdf-tools"]').exists()).toBe(true);
    await input.trigger("keydown", { key: "ArrowDown" });
    await input.trigger("keydown", { key: "Enter" }); // the second Skill
    await tick();
    expect(w.findAll('[data-testid="mention-chip"]').map((c) => c.text().replace(/\s+/g, " "))).toEqual(["@DOCX ×"]);
    expect((input.element as HTMLTextAreaElement).value).toBe("please ");
    expect(w.emitted("send")).toBeUndefined(); // Enter in the picker never sends

    await typeAt(w, "please @pdf");
    await w.get('[data-testid="mention-option-pdf-tools"]').trigger("mousedown");
    await tick();
    await typeAt(w, "please summarise");
    await input.trigger("keydown", { key: "Enter" });
    expect(w.emitted("send")).toEqual([
      [
        "please summarise",
        [
          { kind: "skill", name: "docx", label: "DOCX" },
          { kind: "skill", name: "pdf-tools", label: "PDF-TOOLS" },
        ],
        [],
      ],
    ]);
    expect(w.findAll('[data-testid="mention-chip"]')).toHaveLength(0);
  });

  it("chips are removable, at most 8, MCP servers listed when the route exists; absent otherwise", async () => {
    const names = Array.from({ length: 10 }, (_, i) => `s${i}`);
    const w = await composer(fakeWith(names));
    for (const n of names.slice(0, 9)) {
      await typeAt(w, `@${n}`);
      await w.get(`[data-testid="mention-option-${n}"]`).trigger("mousedown");
      await tick();
    }
    expect(w.findAll('[data-testid="mention-chip"]')).toHaveLength(8);
    expect(w.text()).toContain("At most 8 mentions");
    await w.findAll('[data-testid="mention-chip"] button')[0].trigger("click");
    expect(w.findAll('[data-testid="mention-chip"]')).toHaveLength(7);

    await typeAt(w, "@");
    await w.get('[data-testid="mention-category-mcp"]').trigger("mousedown");
    await tick();
    await w.get('[data-testid="mention-option-github"]').trigger("mousedown");
    await tick();
    expect(w.findAll('[data-testid="mention-chip"]').at(-1)?.attributes("data-kind")).toBe("mcp");

    const plain = await composer(fakeWith(["a"], false));
    await typeAt(plain, "@");
    expect(plain.find('[data-testid="mention-category-mcp"]').exists()).toBe(false);
  });

  it("Escape keeps typed @name text (the backend still recognises it)", async () => {
    const w = await composer(fakeWith(["pdf-tools"]));
    const input = w.get('[data-testid="composer-input"]');
    await typeAt(w, "use @pdf-tools");
    await input.trigger("keydown", { key: "Escape" });
    await tick();
    expect(w.find('[data-testid="mention-picker"]').exists()).toBe(false);
    await input.trigger("keydown", { key: "Enter" });
    expect(w.emitted("send")).toEqual([["use @pdf-tools", [], []]]);
  });

  it("stored mentions come back as chips when the chat is reopened", async () => {
    const entries = buildTranscript([
      message(1, "user", "inspect", { mentions: [{ kind: "skill", name: "code-review", label: "Code Review" }] }),
    ]);
    const first = entries[0];
    expect(first.kind === "user" && first.mentions).toEqual([{ kind: "skill", name: "code-review", label: "Code Review" }]);
    const { wrapper } = await mountWith(UserMessage, { props: { text: "inspect", mentions: first.kind === "user" ? first.mentions : [] } });
    expect(wrapper.get('[data-testid="mention-chip"]').text()).toBe("@Code Review");
  });
  it("knowledge bases are a category once one exists; a pick is sent as a knowledge mention", async () => {
    const fake = fakeWith(["docx"], false);
    const w0 = await composer(fake);
    await typeAt(w0, "@");
    expect(w0.find('[data-testid="mention-category-knowledge"]').exists()).toBe(false);
    w0.unmount();

    const base = { roots: ["/n"], files: 3, chunks: 9, skipped: 0, indexed_at: null, pending: false, progress: null, embedded: 0 };
    fake.on("knowledge.list", () => ({
      bases: [{ name: "Notes", ...base }, { name: "Papers", ...base }],
      embeddings_model: "",
      embeddings_error: "",
    }));
    const w = await composer(fake);
    const input = w.get('[data-testid="composer-input"]');
    await typeAt(w, "what did I write @");
    await w.get('[data-testid="mention-category-knowledge"]').trigger("mousedown");
    await tick();
    await typeAt(w, "what did I write @pap");
    expect(w.findAll('[data-testid^="mention-option-"]').map((o) => o.attributes("data-testid"))).toEqual([
      "mention-option-Papers",
    ]);
    await w.get('[data-testid="mention-option-Papers"]').trigger("mousedown");
    await tick();
    await typeAt(w, "what did I write");
    await input.trigger("keydown", { key: "Enter" });
    expect(w.emitted("send")).toEqual([["what did I write", [{ kind: "knowledge", name: "Papers", label: "Papers" }], []]]);
  });
});
