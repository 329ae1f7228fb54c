import { afterEach, describe, expect, it } from "vitest";
import ToolCard from "@/components/chat/ToolCard.vue";
import type { ToolView } from "@/model/transcript";
import { mountWith } from "./mount";

function tool(extra: Partial<ToolView> = {}): ToolView {
  return { callId: "k1", name: "read_file", arguments: '{"path":"notes.md"}', status: "ok", output: "short", truncated: false, durationMs: 12.4, ...extra };
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("tool card", () => {
  it("shows a spinner while running", async () => {
    const { wrapper } = await mountWith(ToolCard, { props: { tool: tool({ status: "running", output: null, durationMs: null }) } });
    expect(wrapper.find(".spinner").exists()).toBe(true);
    expect(wrapper.get('[data-testid="tool-card"]').attributes("data-state")).toBe("running");
  });

  it("expands to pretty arguments and the result; long output expands fully", async () => {
    const long = "x".repeat(1000);
    const { wrapper } = await mountWith(ToolCard, { props: { tool: tool({ output: long }) } });
    expect(wrapper.find(".tool-body").exists()).toBe(false);
    await wrapper.get(".tool-head").trigger("click");
    expect(wrapper.get(".tool-pre").text()).toBe('{\n  "path": "notes.md"\n}');
    const output = () => wrapper.get('[data-testid="tool-output"]').text();
    expect(output().length).toBeLessThan(long.length);
    await wrapper.get('[data-testid="tool-expand"]').trigger("click");
    expect(output()).toBe(long);
  });

  it("says whether the program ran sandboxed, and why not", async () => {
    const boxed = await mountWith(ToolCard, { props: { tool: tool({ name: "exec", sandbox: "sandboxed" }) } });
    expect(boxed.wrapper.get('[data-testid="tool-sandbox"]').text()).toBe("sandboxed");
    const open = await mountWith(ToolCard, {
      props: { tool: tool({ name: "exec", sandbox: "not sandboxed: disabled by CASHCODE_SANDBOX" }) },
    });
    expect(open.wrapper.get('[data-testid="tool-sandbox"]').text()).toBe("not sandboxed (disabled by CASHCODE_SANDBOX)");
    const other = await mountWith(ToolCard, { props: { tool: tool() } });
    expect(other.wrapper.find('[data-testid="tool-sandbox"]').exists()).toBe(false);
    // with user namespaces: a private network and /tmp too (never worded as "not sandboxed")
    const priv = await mountWith(ToolCard, { props: { tool: tool({ name: "exec", sandbox: "sandboxed, private network and /tmp" }) } });
    expect(priv.wrapper.get('[data-testid="tool-sandbox"]').text()).toBe("sandboxed, private network and /tmp");
  });

  it("marks errors", async () => {
    const { wrapper } = await mountWith(ToolCard, { props: { tool: tool({ status: "error", output: "permission denied" }) } });
    expect(wrapper.get('[data-testid="tool-card"]').classes()).toContain("tool-error");
    expect(wrapper.text()).toContain("Failed");
  });
});

describe("markdown view", () => {
  it("adds a copy button to finished code blocks only", async () => {
    const { default: MarkdownView } = await import("@/components/chat/MarkdownView.vue");
    const source = "```python\nprint(1)\n```";
    const done = await mountWith(MarkdownView, { props: { source } });
    expect(done.wrapper.findAll(".code-copy").map((b) => b.text())).toEqual(["Copy"]);
    const live = await mountWith(MarkdownView, { props: { source, streaming: true } });
    expect(live.wrapper.find(".code-copy").exists()).toBe(false);
  });

  it("labels a code block with its language and says Copied after a copy", async () => {
    const { default: MarkdownView } = await import("@/components/chat/MarkdownView.vue");
    const written: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      configurable: true,
      value: { writeText: (text: string) => (written.push(text), Promise.resolve()) },
    });
    const { wrapper } = await mountWith(MarkdownView, { props: { source: "```python\nprint(1)\n```\n\n```\nplain\n```" } });
    expect(wrapper.findAll(".code-lang").map((l) => l.text())).toEqual(["python"]); // the plain one has none
    const copy = wrapper.get(".code-copy");
    await copy.trigger("click");
    await new Promise((r) => setTimeout(r, 0));
    expect(written).toEqual(["print(1)\n"]);
    expect(copy.text()).toBe("Copied");
  });
});
