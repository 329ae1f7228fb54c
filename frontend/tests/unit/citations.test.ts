import MarkdownIt from "markdown-it";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeTransport } from "@/api/fake";
import { ApiError } from "@/api/transport";
import CitationSources from "@/components/chat/CitationSources.vue";
import MarkdownView from "@/components/chat/MarkdownView.vue";
import { citedSources } from "@/model/citationSources";
import { citationEpoch, citationsPlugin, findCitations, openCitation, resetCitations, setCitationResolver, wholeCitation, type CitedFile } from "@/model/citations";
import { renderMarkdown } from "@/model/markdown";
import CitationViewer from "@/components/knowledge/CitationViewer.vue";
import { mountWith, tick } from "./mount";

const A: CitedFile = { base: "Notes", path: "/home/me/notes/a.md", folder: "/home/me/notes" };

/** A markdown-it with only the citations rule, and a lookup that knows `known`. */
function renderWith(source: string, known: Record<string, CitedFile>): string {
  const md = new MarkdownIt({ linkify: true });
  md.use((m) => citationsPlugin(m, (p) => known[p] ?? null));
  return md.render(source);
}

afterEach(() => {
  setCitationResolver(null);
  resetCitations();
  openCitation.value = null;
});

describe("finding citations", () => {
  it("finds path:start-end and path:line in prose, in the forms models write", () => {
    const text = "See /home/me/notes/a.md:3-5, notes/a.md:12 and C:\\docs\\b.txt:1-2 (also ~/x/y.py:7–9).";
    expect(findCitations(text).map((f) => f.cite)).toEqual([
      { path: "/home/me/notes/a.md", start: 3, end: 5 },
      { path: "notes/a.md", start: 12, end: 12 },
      { path: "C:\\docs\\b.txt", start: 1, end: 2 },
      { path: "~/x/y.py", start: 7, end: 9 },
    ]);
  });

  it("ignores times, URLs, ratios and backwards ranges", () => {
    expect(findCitations("at 10:30, https://example.com/a.md:3, ratio 3:4, a.md:9-2, x:y:3")).toEqual([]);
  });

  it("takes an inline code span only when it is a citation and nothing else", () => {
    expect(wholeCitation("/my docs/a b.md:3-5")).toEqual({ path: "/my docs/a b.md", start: 3, end: 5 });
    expect(wholeCitation("print(a.md:3)")).toBeNull();
    expect(wholeCitation("x = 1")).toBeNull();
  });
});

describe("the markdown-it rule", () => {
  it("links a knowledge-base citation in text and in a code span", () => {
    const html = renderWith("Use --quiet (/home/me/notes/a.md:3-5) or `/home/me/notes/a.md:7`.", { "/home/me/notes/a.md": A });
    expect(html).toContain('(<a href="#kb-cite" class="kb-cite" data-kb-path="/home/me/notes/a.md" data-kb-start="3" data-kb-end="5"');
    expect(html).toContain(">/home/me/notes/a.md:3-5</a>)");
    expect(html).toContain('data-kb-start="7" data-kb-end="7" title="Notes · /home/me/notes/a.md:7-7"><code>/home/me/notes/a.md:7</code></a>');
  });

  it("never links inside fenced or indented code blocks, or inside a link", () => {
    const source = [
      "```",
      "/home/me/notes/a.md:3-5",
      "```",
      "",
      "    /home/me/notes/a.md:3-5",
      "",
      "[/home/me/notes/a.md:3-5](https://example.com/x)",
    ].join("\n");
    expect(renderWith(source, { "/home/me/notes/a.md": A })).not.toContain("kb-cite");
  });

  it("leaves a citation the backend does not know as plain text", () => {
    expect(renderWith("See /etc/passwd:1-3 and notes/a.md:3-5.", {})).toBe("<p>See /etc/passwd:1-3 and notes/a.md:3-5.</p>\n");
  });

  it("escapes what the backend answered into attributes", () => {
    const evil: CitedFile = { base: '"><img src=x onerror=alert(1)>', path: '/x/"><img src=x onerror=alert(1)>.md', folder: null };
    const html = renderWith("notes/a.md:3", { "notes/a.md": evil });
    expect(html).not.toContain("<img");
    expect(html).toContain('data-kb-path="/x/&quot;&gt;&lt;img src=x onerror=alert(1)&gt;.md"');
  });
});

describe("the app's pipeline (resolver, DOMPurify)", () => {
  it("asks the backend once for a batch, then renders the link through the sanitiser", async () => {
    const asked: string[][] = [];
    setCitationResolver(async (paths) => {
      asked.push(paths);
      return paths.map((p) => (p === "notes/a.md" ? A : null));
    });
    const source = "Answer: notes/a.md:3-5, /etc/passwd:1, and ```notes/a.md:3-5``` again notes/a.md:9.";
    const epoch = citationEpoch.value;
    expect(renderMarkdown(source)).not.toContain("kb-cite"); // not known yet: plain text
    await tick();
    expect(asked).toEqual([["notes/a.md", "/etc/passwd"]]);
    expect(citationEpoch.value).toBeGreaterThan(epoch);
    const html = renderMarkdown(source);
    const doc = new DOMParser().parseFromString(html, "text/html");
    const links = [...doc.querySelectorAll("a.kb-cite")];
    expect(links.map((a) => [a.textContent, a.getAttribute("data-kb-path"), a.getAttribute("data-kb-start"), a.getAttribute("data-kb-end")])).toEqual([
      ["notes/a.md:3-5", A.path, "3", "5"],
      ["notes/a.md:3-5", A.path, "3", "5"],
      ["notes/a.md:9", A.path, "9", "9"],
    ]);
    expect(renderMarkdown(source)).toBe(html);
    expect(asked).toHaveLength(1); // cached
  });

  it("a click on a citation in an answer opens the viewer on those lines (browser)", async () => {
    const fake = new FakeTransport().on("knowledge.resolve", async ({ paths }) => ({ files: paths.map((p) => (p === "notes/a.md" ? A : null)) }));
    const { wrapper } = await mountWith(MarkdownView, { props: { source: "It is in notes/a.md:3-5." }, fake });
    await tick();
    await tick();
    const link = wrapper.find("a.kb-cite");
    expect(link.exists()).toBe(true);
    await link.trigger("click");
    expect(openCitation.value).toEqual({ path: A.path, start: 3, end: 5 });
    expect(fake.callsTo("knowledge.resolve")).toEqual([{ paths: ["notes/a.md"] }]);
    wrapper.unmount();
  });

  it("in the desktop window a click opens the viewer at the cited lines, not the system's opener", async () => {
    const fake = windowFake().on("knowledge.resolve", async ({ paths }) => ({ files: paths.map((p) => (p === "notes/a.md" ? A : null)) }));
    const { wrapper } = await mountWith(MarkdownView, { props: { source: "It is in notes/a.md:3-5." }, fake });
    await tick();
    await tick();
    await wrapper.find("a.kb-cite").trigger("click");
    expect(openCitation.value).toEqual({ path: A.path, start: 3, end: 5 });
    expect(fake.callsTo("desktop.open_path")).toEqual([]);
    wrapper.unmount();
  });

  it("'Open in editor' is the viewer's second step in the window, and its failure is shown", async () => {
    let fail = true;
    const fake = windowFake()
      .on("knowledge.read", async () => ({ file: { ...A, base: "Notes" }, start_line: 3, end_line: 5, first_line: 1, lines: ["# P", "", "## Jam", "", "Quince"], total_lines: 5 }))
      .on("desktop.open_path", async () => {
        if (fail) throw new ApiError("desktop.open_path", "unsupported", "The system could not open x: no", {}, { key: "desktop.open_failed", params: { path: A.path, reason: "xdg-open exited with status 3" } });
        return { ok: true };
      });
    const { wrapper } = await mountWith(CitationViewer, { fake });
    openCitation.value = { path: A.path, start: 3, end: 5 };
    await tick();
    await tick();
    expect(wrapper.findAll("[data-cited]").map((l) => l.attributes("data-line"))).toEqual(["3", "4", "5"]);
    await wrapper.find('[data-testid="kb-viewer-open-file"]').trigger("click");
    await tick();
    expect(fake.callsTo("desktop.open_path")).toEqual([{ path: A.path, folder: false }]);
    expect(wrapper.find('[data-testid="kb-viewer-open-error"]').text()).toBe(`The system could not open ${A.path}: xdg-open exited with status 3`);
    fail = false;
    await wrapper.find('[data-testid="kb-viewer-open-file"]').trigger("click");
    await tick();
    expect(wrapper.find('[data-testid="kb-viewer-open-error"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it("the browser has no 'Open in editor'", async () => {
    const fake = new FakeTransport().on("knowledge.read", async () => ({ file: { ...A }, start_line: 3, end_line: 3, first_line: 3, lines: ["x"], total_lines: 9 }));
    const { wrapper } = await mountWith(CitationViewer, { fake });
    openCitation.value = { path: A.path, start: 3, end: 3 };
    await tick();
    await tick();
    expect(wrapper.find('[data-testid="kb-viewer-lines"]').exists()).toBe(true);
    expect(wrapper.find('[data-testid="kb-viewer-open-file"]').exists()).toBe(false);
    wrapper.unmount();
  });
});

// jsdom has no layout: the viewer scrolls the cited lines into view.
Element.prototype.scrollIntoView ??= () => undefined;

/** A fake transport that says it is the desktop window's bridge. */
function windowFake(): FakeTransport {
  const fake = new FakeTransport();
  Object.defineProperty(fake, "kind", { value: "pywebview" });
  return fake;
}

describe("the Sources list under a citing answer", () => {
  const B: CitedFile = { base: "Pantry", path: "/home/me/pantry/tea.md", folder: "/home/me/pantry" };
  const known: Record<string, CitedFile> = { "notes/a.md": A, "/home/me/notes/a.md": A, "tea.md": B };
  const lookup = (p: string) => known[p] ?? null;

  it("lists each knowledge file once, in first-cited order, with its distinct ranges sorted", () => {
    const text = "Jam: `notes/a.md:8-9`; tea: tea.md:2; see also /home/me/notes/a.md:3-5 and notes/a.md:8-9. Not /etc/x.md:1.";
    expect(citedSources(text, lookup)).toEqual([
      { file: A, ranges: [{ start: 3, end: 5 }, { start: 8, end: 9 }] },
      { file: B, ranges: [{ start: 2, end: 2 }] },
    ]);
    expect(citedSources("no citations here", lookup)).toEqual([]);
  });

  it("renders under the answer and a range opens the viewer at its lines", async () => {
    setCitationResolver(async (paths) => paths.map((p) => known[p] ?? null));
    const { wrapper } = await mountWith(CitationSources, { props: { text: "From notes/a.md:3-5 and tea.md:2." }, fake: new FakeTransport() });
    await vi.waitFor(() => expect(wrapper.findAll('[data-testid="cited-source"]')).toHaveLength(2));
    expect(wrapper.text()).toContain("a.md");
    expect(wrapper.text()).toContain("lines 3–5");
    expect(wrapper.text()).toContain("line 2");
    await wrapper.findAll('[data-testid="cited-range"]')[0].trigger("click");
    expect(openCitation.value).toEqual({ path: A.path, start: 3, end: 5 });
  });
});
