/**
 * Markdown → safe HTML. markdown-it with raw HTML disabled renders the model's text; highlight.js
 * colours code; DOMPurify then sanitises the result (defence in depth), and every link opens
 * outside the app with rel="noopener noreferrer". Nothing the model writes can run as script.
 */
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt, { type Env } from "markdown-it";
import { citationsPlugin } from "./citations";
import { mathPlugin } from "./math";

const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);

const SAFE_URL = /^(?:https?:|mailto:|#)/i;

function highlight(code: string, info: string): string {
  const lang = info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const escape = md.utils.escapeHtml;
  if (lang && hljs.getLanguage(lang)) {
    const html = hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
    return `<pre class="code-block"><code class="hljs language-${escape(lang)}">${html}</code></pre>`;
  }
  return `<pre class="code-block"><code class="hljs">${escape(code)}</code></pre>`;
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false, highlight });
md.use(mathPlugin);
md.use(citationsPlugin); // knowledge-base citations → links (model/citations.ts)

/** Fences that become more than code: a Mermaid diagram, an HTML or SVG artifact preview. */
export const DIAGRAM_LANGS = new Set(["mermaid"]);
export const ARTIFACT_LANGS = new Set(["html", "svg"]);
const plainFence = md.renderer.rules.fence!;
/** An answer the model marks as an artifact: a fence whose info string is `artifact` or names it
 * after the language (```html artifact, ```svg artifact). Its kind is svg when it says so or
 * the content is an <svg> element, else a whole HTML document (docs/decisions.md). */
export function markedArtifact(info: string, content: string): "html" | "svg" | null {
  const words = info.trim().toLowerCase().split(/\s+/);
  if (!words.includes("artifact")) return null;
  return words.includes("svg") || /^\s*<svg[\s>]/i.test(content) ? "svg" : "html";
}

md.renderer.rules.fence = (tokens, idx, options, env, self) => {
  const marked = markedArtifact(tokens[idx].info, tokens[idx].content);
  if (marked !== null) {
    const code = md.utils.escapeHtml(tokens[idx].content);
    return `<div class="artifact-block" data-lang="${marked}"><pre class="code-block"><code class="hljs language-${marked}">${code}</code></pre></div>\n`;
  }
  const lang = tokens[idx].info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  if (DIAGRAM_LANGS.has(lang)) {
    // The source stays in the markup (export, copy, the error view); MarkdownView draws the SVG
    // once the block is complete (components/chat/richBlocks.ts).
    const code = md.utils.escapeHtml(tokens[idx].content);
    return `<div class="diagram-block" data-lang="${lang}"><pre class="code-block diagram-source"><code class="hljs">${code}</code></pre></div>\n`;
  }
  const html = plainFence(tokens, idx, options, env, self);
  if (ARTIFACT_LANGS.has(lang)) return `<div class="artifact-block" data-lang="${lang}">${html}</div>\n`;
  return html;
};

// KaTeX's HTML output: spans with classes and a few inline sizes, plus small SVGs (roots,
// stretchy arrows). Only inside an element KaTeX made (`.katex`) may those pass, and only with
// values that cannot load or run anything; everywhere else svg stays forbidden and style too.
const KATEX_SVG_TAGS = new Set(["svg", "path", "line"]);
const KATEX_SVG_ATTRS = new Set(["width", "height", "viewbox", "preserveaspectratio", "d", "x1", "x2", "y1", "y2", "stroke-width"]);
const SAFE_STYLE = /^(?:\s*[a-z-]+\s*:\s*[-+0-9.a-z% ]+\s*;?)*\s*$/i;
const SAFE_SVG_VALUE = /^[-+0-9.a-z,\s]*$/i;

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  ADD_TAGS: ["svg", "path", "line"],
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "option", "iframe", "object", "embed", "math"],
  FORBID_ATTR: ["style", "srcset", "formaction", "action", "background", "ping"],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  ADD_ATTR: ["target"],
};
const purifier = DOMPurify(window);
// The policy is parsed once. `sanitize(html, config)` parses it again on every call (fresh tag
// and attribute sets from the profile): measured in Chromium at ~0.9 ms of a ~1.2 ms call for a
// paragraph, and a streamed reply calls sanitize at least once per pushed batch. The output is
// the same (frontend/tests/unit/markdown.test.ts).
purifier.setConfig(PURIFY_CONFIG);

function inKatex(node: Element): boolean {
  return node.parentElement?.closest(".katex") != null;
}

purifier.addHook("uponSanitizeElement", (node, data) => {
  if (KATEX_SVG_TAGS.has(data.tagName) && !(node instanceof Element && inKatex(node))) node.parentNode?.removeChild(node);
});

purifier.addHook("uponSanitizeAttribute", (node, data) => {
  if (data.attrName === "style") {
    if (node.closest(".katex") && SAFE_STYLE.test(data.attrValue)) data.forceKeepAttr = true;
  } else if (KATEX_SVG_ATTRS.has(data.attrName) && KATEX_SVG_TAGS.has(node.tagName.toLowerCase()) && inKatex(node)) {
    if (SAFE_SVG_VALUE.test(data.attrValue)) data.forceKeepAttr = true;
  }
});

purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    const href = node.getAttribute("href") ?? "";
    if (!SAFE_URL.test(href.trim())) node.removeAttribute("href");
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** Sanitise any HTML string with the app's policy. */
export function sanitizeHtml(html: string): string {
  return purifier.sanitize(html) as string;
}

/** Render Markdown from the model (or the user) to sanitised HTML. */
export function renderMarkdown(source: string): string {
  return sanitizeHtml(md.render(source));
}

/** Render a block that is still streaming: its formulas stay source until the block is done. */
export function renderPendingMarkdown(source: string): string {
  return sanitizeHtml(md.render(source, { mathPending: true } as Env));
}

/** One top-level block of a Markdown source: the line it starts on and its sanitised HTML. */
export interface RenderedBlock {
  line: number;
  html: string;
}

/**
 * Render `source` top-level block by top-level block (joined, the blocks equal
 * `renderMarkdown(source)`). Returns null when the source defines link references: a definition
 * changes how blocks elsewhere render, so such a source must be rendered whole.
 */
export function renderTopLevelBlocks(source: string, pendingLast = false): RenderedBlock[] | null {
  const env: Env = {};
  const tokens = md.parse(source, env);
  if (env.references && Object.keys(env.references).length > 0) return null;
  const blocks: RenderedBlock[] = [];
  let start = -1;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.level !== 0) continue;
    if (token.nesting !== -1 && start < 0) start = i;
    if (token.nesting === 1) continue;
    const first = tokens[start];
    // The last block of a streaming source is still open: its math waits (model/math.ts).
    const last = pendingLast && !tokens.slice(i + 1).some((t) => t.level === 0);
    const blockEnv = last ? ({ ...env, mathPending: true } as Env) : env;
    const html = sanitizeHtml(md.renderer.render(tokens.slice(start, i + 1), md.options, blockEnv));
    blocks.push({ line: first.map ? first.map[0] : 0, html });
    start = -1;
  }
  return blocks;
}
