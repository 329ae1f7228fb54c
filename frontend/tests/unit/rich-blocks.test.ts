import { describe, expect, it } from "vitest";
import MarkdownView from "@/components/chat/MarkdownView.vue";
import { artifactDocument, artifactUrl } from "@/model/artifacts";
import { applySandboxRules, SANDBOXED_FRAME_ATTRIBUTES } from "@/model/sandboxedFrame";
import { createBlockRenderer } from "@/model/blocks";
import { mermaidRequested } from "@/model/diagrams";
import { chatToHtml } from "@/model/htmlExport";
import { renderMarkdown } from "@/model/markdown";
import { mountWith, tick } from "./mount";

function dom(html: string): HTMLElement {
  const host = document.createElement("div");
  host.innerHTML = html;
  return host;
}

const ANSWER = [
  "Euler: $e^{i\\pi}+1=0$.",
  "",
  "```mermaid",
  "flowchart LR",
  "  A --> B",
  "```",
  "",
  "```html",
  "<script>document.body.textContent = 'hi'</script>",
  "```",
].join("\n");

describe("diagram and artifact fences", () => {
  it("keep their source in the markup and do not load Mermaid by rendering", () => {
    const host = dom(renderMarkdown(ANSWER));
    const diagram = host.querySelector(".diagram-block[data-lang='mermaid'] pre.diagram-source code");
    expect(diagram?.textContent).toBe("flowchart LR\n  A --> B\n");
    const artifact = host.querySelector(".artifact-block[data-lang='html'] pre code");
    expect(artifact?.textContent).toContain("<script>document.body.textContent");
    expect(host.querySelector("script, iframe")).toBeNull();
    expect(mermaidRequested()).toBe(false);
  });

  it("an answer the model marks as an artifact gets the artifact block too", () => {
    const marked = ["```artifact", "<h1>Dashboard</h1><script>1</script>", "```", "", "```xml artifact", "<svg viewBox='0 0 1 1'></svg>", "```", "", "```js", "let artifact = 1;", "```"].join("\n");
    const host = dom(renderMarkdown(marked));
    const blocks = [...host.querySelectorAll(".artifact-block")].map((b) => b.getAttribute("data-lang"));
    expect(blocks).toEqual(["html", "svg"]); // the plain js fence stays code
    expect(host.querySelector(".artifact-block[data-lang='html'] code")?.textContent).toContain("<h1>Dashboard</h1>");
    expect(host.querySelector("script, iframe, svg")).toBeNull(); // still only text until Preview
  });

  it("a diagram fence still streaming stays in the open chunk", () => {
    const render = createBlockRenderer();
    const chunks = render("Intro\n\n```mermaid\nflowchart LR\n  A -->");
    expect(chunks.length).toBe(2);
    expect(dom(chunks[1]).querySelector(".diagram-block")).not.toBeNull();
  });
});

describe("artifact frames", () => {
  it("get scripts only, never the app's origin, no powerful feature and no referrer", () => {
    const frame = document.createElement("iframe");
    applySandboxRules(frame);
    expect(frame.getAttribute("sandbox")).toBe("allow-scripts");
    expect(frame.getAttribute("sandbox")).not.toContain("allow-same-origin");
    expect(frame.getAttribute("referrerpolicy")).toBe("no-referrer");
    for (const feature of ["camera", "microphone", "display-capture", "geolocation"]) {
      expect(frame.getAttribute("allow")).toContain(`${feature} 'none'`);
    }
    expect(SANDBOXED_FRAME_ATTRIBUTES.sandbox).toBe("allow-scripts");
  });

  it("carry the whole document, UTF-8 safe, in the fragment of a page outside the UI's prefix", () => {
    const url = artifactUrl("html", "<p>你好 ✓</p>");
    // Root-absolute: under `cashcode serve` a relative address would put the secret prefix
    // into the artifact's own `location`.
    expect(url.startsWith("/artifact.html#")).toBe(true);
    const b64 = decodeURIComponent(url.slice("/artifact.html#".length));
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    expect(new TextDecoder().decode(bytes)).toBe("<p>你好 ✓</p>");
    expect(artifactDocument("svg", "<svg></svg>")).toMatch(/^<!doctype html>.*<body><svg><\/svg><\/body>/);
  });
});

describe("HTML export", () => {
  it("is a standalone page with KaTeX markup, the code kept, and no script", async () => {
    const page = await chatToHtml("Notes <1>", "# Notes\n\nEuler: $e^{i\\pi}+1=0$.\n\n```html\n<script>alert(1)</script>\n```", "");
    expect(page.startsWith("<!doctype html>")).toBe(true);
    expect(page).toContain("<title>Notes &lt;1&gt;</title>");
    expect(page).toContain("default-src 'none'");
    const doc = new DOMParser().parseFromString(page, "text/html");
    expect(doc.querySelectorAll(".katex").length).toBe(1);
    expect(doc.querySelectorAll("script").length).toBe(0);
    expect(doc.querySelector("pre code")?.textContent).toContain("<script>alert(1)</script>");
  });
});

describe("MarkdownView while streaming", () => {
  it("gives an artifact its Preview only once its block is complete, never the open one", async () => {
    const open = "Here:\n\n```html\n<script>document.title = 'x'</script>\n";
    const { wrapper } = await mountWith(MarkdownView, { props: { source: open, streaming: true } });
    await tick();
    expect(wrapper.findAll(".artifact-block").length).toBe(1);
    expect(wrapper.findAll(".artifact-preview").length).toBe(0);
    await wrapper.setProps({ source: open + "```\n\nAfter it.", streaming: true });
    await tick();
    expect(wrapper.findAll(".artifact-preview").length).toBe(1);
    expect(wrapper.findAll("iframe").length).toBe(0); // Preview is a click away, not automatic
    await wrapper.setProps({ source: open + "```\n\nAfter it.", streaming: false });
    await tick();
    await wrapper.find(".artifact-preview").trigger("click");
    const frame = wrapper.find("iframe.artifact-frame");
    expect(frame.attributes("sandbox")).toBe("allow-scripts");
    expect(frame.attributes("src")?.startsWith("/artifact.html#")).toBe(true);
    wrapper.unmount();
  }, 30_000);
});
