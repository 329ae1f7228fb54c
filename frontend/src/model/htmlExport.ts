/**
 * A chat as one standalone HTML file: the Markdown export rendered by the app's own pipeline,
 * math as KaTeX markup (its CSS and fonts embedded as data:), diagrams as their static SVG, and
 * no script at all (artifacts stay as their code). Built in the page because KaTeX and Mermaid
 * run here; the backend only names and (in the desktop window) saves the file.
 */
import { renderDiagram } from "./diagrams";
import { renderMarkdown } from "./markdown";
import { loadKatex } from "./math";

const PAGE_STYLE = [
  "body{font:15px/1.6 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}",
  "pre{background:#f5f5f3;padding:.75rem;border-radius:6px;overflow:auto}",
  "code{font-family:ui-monospace,monospace;font-size:13px}",
  "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}",
  ".math-display{overflow-x:auto}.math-error-message,.diagram-error{color:#c0392b;font-size:12px;display:block}",
  ".diagram-view svg{max-width:100%;height:auto}",
].join("");

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

async function dataUrl(url: string): Promise<string | null> {
  try {
    const response = await fetch(url);
    if (!response.ok) return null;
    const bytes = new Uint8Array(await response.arrayBuffer());
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return `data:font/woff2;base64,${btoa(binary)}`;
  } catch {
    return null;
  }
}

/** KaTeX's rules from the page's style sheets, each font face's woff2 embedded as data:. */
export async function katexCss(sheets: Iterable<CSSStyleSheet> = document.styleSheets): Promise<string> {
  const out: string[] = [];
  for (const sheet of sheets) {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      continue;
    }
    const base = sheet.href ?? document.baseURI;
    for (const rule of Array.from(rules)) {
      const text = rule.cssText;
      if (!/katex/i.test(text)) continue;
      if (rule.constructor.name === "CSSFontFaceRule" || text.startsWith("@font-face")) {
        const woff2 = /url\("?([^")]+\.woff2)"?\)/.exec(text)?.[1];
        const data = woff2 ? await dataUrl(new URL(woff2, base).href) : null;
        if (!data) continue; // the system's fonts then draw the formula
        out.push(text.replace(/src:[^;}]+/, `src: url("${data}") format("woff2")`));
      } else {
        out.push(text);
      }
    }
  }
  return out.join("\n");
}

/** Replace each diagram block's source with its drawing (the source stays when it fails). */
async function drawDiagrams(host: HTMLElement): Promise<void> {
  for (const block of Array.from(host.querySelectorAll<HTMLElement>(".diagram-block"))) {
    const source = block.querySelector("pre code")?.textContent ?? "";
    const result = await renderDiagram(source);
    if (result.ok) {
      const view = document.createElement("div");
      view.className = "diagram-view";
      view.innerHTML = result.svg; // sanitised SVG (model/diagrams.ts)
      block.replaceChildren(view);
    } else {
      const error = document.createElement("div");
      error.className = "diagram-error";
      error.textContent = result.error;
      block.prepend(error);
    }
  }
}

/** The standalone document for a chat's Markdown export. */
export async function chatToHtml(title: string, markdown: string, css?: string): Promise<string> {
  await loadKatex();
  const host = document.createElement("div");
  host.innerHTML = renderMarkdown(markdown); // sanitised: no script can be in it
  await drawDiagrams(host);
  for (const el of Array.from(host.querySelectorAll("script, iframe, button"))) el.remove();
  const style = css ?? (await katexCss());
  return (
    `<!doctype html>\n<html><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:">` +
    `<title>${escapeHtml(title)}</title><style>${PAGE_STYLE}\n${style}</style></head>\n` +
    `<body>${host.innerHTML}</body></html>\n`
  );
}
