import { describe, expect, it } from "vitest";
import { renderMarkdown, sanitizeHtml } from "@/model/markdown";

/** Payloads a model (or a prompt-injected web page) could emit. */
const XSS_CORPUS: string[] = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "<img src=\"x\" onerror=\"alert(1)\"/>",
  "<svg onload=alert(1)>",
  "<svg><script>alert(1)</script></svg>",
  "<iframe src=\"javascript:alert(1)\"></iframe>",
  "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
  "<object data=\"javascript:alert(1)\"></object>",
  "<embed src=\"javascript:alert(1)\">",
  "<a href=\"javascript:alert(1)\">x</a>",
  "<a href=\"jav&#x09;ascript:alert(1)\">x</a>",
  "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
  "[x](javascript:alert(1))",
  "[x](JaVaScRiPt:alert(1))",
  "[x](jav&#x09;ascript:alert(1))",
  "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "[x](vbscript:msgbox(1))",
  "![x](javascript:alert(1))",
  "<javascript:alert(1)>",
  "<https://example.com/\" onmouseover=\"alert(1)>",
  "```html\n<script>alert(1)</script>\n```",
  "```\n<img src=x onerror=alert(1)>\n```",
  "`<img src=x onerror=alert(1)>`",
  "<div style=\"background:url(javascript:alert(1))\">x</div>",
  "<p style=\"width: expression(alert(1))\">x</p>",
  "<style>@import 'javascript:alert(1)';</style>",
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
  "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
  "<form><math><mtext></form><form><mglyph><svg><mtext><textarea><path id=\"</textarea><img onerror=alert(1) src=1>\">",
  "| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | <a href=javascript:alert(1) onclick=alert(1)>c</a> |",
  "<details open ontoggle=alert(1)>",
  "<body onload=alert(1)>",
  "<input autofocus onfocus=alert(1)>",
  "<button formaction=javascript:alert(1)>x</button>",
  "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
  "<base href=\"javascript:alert(1)//\">",
  "<a href=\"  javascript:alert(1)\">x</a>",
  "[click](  javascript:alert(1)  )",
  "<link rel=stylesheet href=\"javascript:alert(1)\">",
  "<video><source onerror=\"alert(1)\"></video>",
  "<a href=\"vbscript:msgbox(1)\">x</a>",
];

const BAD_TAGS = "script, iframe, object, embed, style, link, meta, base, form, input, button, svg, math, frame, frameset";
const BAD_URL = /^\s*(javascript|vbscript|data:text\/html)/i;

function render(html: string): HTMLElement {
  const host = document.createElement("div");
  host.innerHTML = html;
  return host;
}

function assertInert(host: HTMLElement, payload: string): void {
  expect(host.querySelectorAll(BAD_TAGS).length, payload).toBe(0);
  for (const el of host.querySelectorAll("*")) {
    for (const attr of el.getAttributeNames()) {
      expect(attr.toLowerCase().startsWith("on"), `${payload}: ${attr}`).toBe(false);
      expect(attr.toLowerCase(), payload).not.toBe("style");
      if (["href", "src", "xlink:href", "action", "formaction", "srcdoc"].includes(attr.toLowerCase())) {
        const value = (el.getAttribute(attr) ?? "").replace(/[\u0000-\u0020]/g, "");
        expect(BAD_URL.test(value), `${payload}: ${attr}=${value}`).toBe(false);
        expect(/^data:/i.test(value) && el.tagName !== "IMG", `${payload}: ${attr}=${value}`).toBe(false);
      }
    }
  }
}

describe("markdown sanitising", () => {
  it("has a corpus of at least 25 payloads", () => {
    expect(XSS_CORPUS.length).toBeGreaterThanOrEqual(25);
  });

  it.each(XSS_CORPUS)("renders inert: %s", (payload) => {
    assertInert(render(renderMarkdown(payload)), payload);
  });

  it.each(XSS_CORPUS)("sanitizeHtml alone also neutralises raw HTML: %s", (payload) => {
    assertInert(render(sanitizeHtml(payload)), payload);
  });

  it("applies the app's policy, not DOMPurify's defaults, on every call", () => {
    // The policy is set once on the purifier (markdown.ts); forms, inputs, buttons and inline
    // styles pass DOMPurify's default html profile, so they show whether it still applies.
    const dirty = '<p style="color:red">a</p><form action="/x"><input value="v"><button>b</button></form><svg><circle/></svg>';
    for (let i = 0; i < 3; i++) {
      const host = render(sanitizeHtml(dirty));
      expect(host.querySelector("form, input, button, svg, [style]"), `call ${i}`).toBeNull();
      expect(host.querySelector("p")?.textContent).toBe("a");
      expect(render(renderMarkdown("[x](https://example.com)")).querySelector("a")?.getAttribute("rel")).toBe("noopener noreferrer");
    }
  });

  it("shows raw HTML from the model as text", () => {
    const host = render(renderMarkdown("<b>bold?</b> <script>alert(1)</script>"));
    expect(host.querySelector("b")).toBeNull();
    expect(host.textContent).toContain("<script>alert(1)</script>");
  });

  it("still renders legitimate Markdown", () => {
    const md = [
      "# Title",
      "",
      "Some **bold** and _italic_ text with `code`.",
      "",
      "- one",
      "- two",
      "",
      "1. first",
      "2. second",
      "",
      "| Name | Value |",
      "|------|-------|",
      "| a    | 1     |",
      "",
      "```python",
      "def hello():",
      "    return 'hi'",
      "```",
      "",
      "[site](https://example.com) and https://example.org and [mail](mailto:a@example.com)",
    ].join("\n");
    const host = render(renderMarkdown(md));
    expect(host.querySelector("h1")?.textContent).toBe("Title");
    expect(host.querySelector("strong")?.textContent).toBe("bold");
    expect(host.querySelectorAll("ul li").length).toBe(2);
    expect(host.querySelectorAll("ol li").length).toBe(2);
    expect(host.querySelectorAll("table tbody tr td").length).toBe(2);
    const code = host.querySelector("pre code.language-python");
    expect(code).not.toBeNull();
    expect(code?.querySelector(".hljs-keyword")?.textContent).toBe("def");
    const links = [...host.querySelectorAll("a")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://example.com", "https://example.org", "mailto:a@example.com"]);
    for (const a of links) {
      expect(a.getAttribute("target")).toBe("_blank");
      expect(a.getAttribute("rel")).toBe("noopener noreferrer");
    }
  });

  it("escapes code in unknown languages and keeps it verbatim", () => {
    const host = render(renderMarkdown("```weird-lang\n<b>&amp;</b>\n```"));
    expect(host.querySelector("pre code")?.textContent).toBe("<b>&amp;</b>\n");
    expect(host.querySelector("pre b")).toBeNull();
  });
});
