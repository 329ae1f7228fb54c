import { beforeAll, describe, expect, it } from "vitest";
import { createBlockRenderer } from "@/model/blocks";
import { renderMarkdown, sanitizeHtml } from "@/model/markdown";
import { katexReady, loadKatex } from "@/model/math";
import { textWithTex } from "@/model/mathCopy";

function dom(html: string): HTMLElement {
  const host = document.createElement("div");
  host.innerHTML = html;
  return host;
}

describe("math before KaTeX has loaded", () => {
  it("shows the source and starts loading KaTeX", () => {
    const host = dom(renderMarkdown("Energy $E=mc^2$ here."));
    const el = host.querySelector(".math-inline.math-pending");
    expect(el?.textContent).toBe("$E=mc^2$");
    expect(el?.getAttribute("data-tex")).toBe("E=mc^2");
  });
});

describe("math with KaTeX", () => {
  beforeAll(async () => {
    await loadKatex();
    expect(katexReady()).toBe(true);
  });

  it("renders the four delimiters as KaTeX markup", () => {
    const src = ["Inline $a^2+b^2=c^2$ and \\(x_1\\).", "", "$$", "\\int_0^1 x\\,dx", "$$", "", "\\[\\sqrt{2}\\]"].join("\n");
    const host = dom(renderMarkdown(src));
    const inline = host.querySelectorAll(".math-inline .katex");
    const display = host.querySelectorAll(".math-display .katex-display, .math-display .katex");
    expect(inline.length).toBe(2);
    expect(host.querySelectorAll(".math-display").length).toBe(2);
    expect(display.length).toBeGreaterThanOrEqual(2);
    expect(host.querySelectorAll(".math-pending, .math-error").length).toBe(0);
  });

  it("keeps KaTeX's sizes and root SVGs through DOMPurify, nothing else", () => {
    const host = dom(renderMarkdown("$$\\sqrt{x^2+1}$$"));
    expect(host.querySelector(".katex svg path")?.getAttribute("d")).toBeTruthy();
    expect(host.querySelector(".katex [style]")).not.toBeNull();
    // The same markup outside a KaTeX element loses both.
    const fake = dom(sanitizeHtml('<span style="height:1em"><svg viewBox="0 0 1 1"><path d="M0 0"/></svg></span>'));
    expect(fake.querySelector("svg, [style]")).toBeNull();
    const styled = dom(sanitizeHtml('<span class="katex"><span style="background:url(javascript:alert(1))">x</span><svg onload="alert(1)"><path d="M0 0" onclick="x()"/></svg></span>'));
    expect(styled.querySelector("[style]")).toBeNull();
    expect(styled.querySelector("[onload], [onclick]")).toBeNull();
  });

  it("shows a malformed formula's source and error and renders the rest", () => {
    const host = dom(renderMarkdown("Bad $\\frac{1}{$ then **bold** and $x$.\n\n$$\\begin{foo}$$"));
    const errors = host.querySelectorAll(".math-error");
    expect(errors.length).toBe(2);
    expect(errors[0].querySelector(".math-source")?.textContent).toBe("$\\frac{1}{$");
    expect(errors[0].querySelector(".math-error-message")?.textContent).toMatch(/KaTeX parse error/);
    expect(host.querySelector("strong")?.textContent).toBe("bold");
    expect(host.querySelectorAll(".math-inline .katex").length).toBe(1);
  });

  it("leaves prices, escaped dollars and code alone", () => {
    const host = dom(renderMarkdown("It costs $5 and $10. Not \\$x\\$. `$y$`"));
    expect(host.querySelector(".math")).toBeNull();
    expect(host.textContent).toContain("$5 and $10");
  });

  it("refuses KaTeX's trust commands", () => {
    const host = dom(renderMarkdown("$\\href{javascript:alert(1)}{x}$"));
    expect(host.querySelector("a")).toBeNull();
  });

  it("copy gives the TeX source of each formula", () => {
    const host = dom(renderMarkdown("Area $\\pi r^2$ of a circle.\n\n$$\\sum_i i$$"));
    const fragment = document.createDocumentFragment();
    for (const child of Array.from(host.childNodes)) fragment.appendChild(child.cloneNode(true));
    const text = textWithTex(fragment);
    expect(text).toContain("Area $\\pi r^2$ of a circle.");
    expect(text).toContain("$$\\sum_i i$$");
  });

  it("while streaming renders math only in finished blocks", () => {
    const render = createBlockRenderer();
    const open = render("First $x$\n\n$$\\frac{a}{b}");
    expect(dom(open.join("")).querySelectorAll(".math-pending").length).toBe(1);
    expect(dom(open[0]).querySelector(".katex")).not.toBeNull();
    const closed = render("First $x$\n\n$$\\frac{a}{b}$$\n\nNext");
    const done = dom(closed.slice(0, -1).join(""));
    expect(done.querySelectorAll(".katex").length).toBe(2);
    expect(done.querySelector(".math-pending")).toBeNull();
  });
});
