/**
 * TeX math in Markdown: `$…$` and `\(…\)` inline, `$$…$$` and `\[…\]` display (a block of its
 * own lines, or inline in a paragraph). A small markdown-it plugin rather than a published one:
 * the published KaTeX plugins declare markdown-it 14 as a peer, and this app is on 15.
 *
 * KaTeX is loaded on demand (`loadKatex`): until it has arrived, and in a block that is still
 * streaming (`env.mathPending`), a formula renders as its source in a `.math-pending` element;
 * `mathEpoch` changes when KaTeX arrives so views render again. Every formula element carries its
 * TeX in `data-tex` (copy gives the source, model/mathCopy.ts); a malformed one shows its source
 * and KaTeX's message (`.math-error`) and never breaks the rest of the message.
 */
import type { Env, MarkdownIt, StateBlock, StateInline } from "markdown-it";
import { shallowRef } from "vue";

type Katex = typeof import("katex").default;

let katex: Katex | null = null;
let loading: Promise<void> | null = null;
/** Bumped once when KaTeX has loaded: a view that rendered formulas as source renders again. */
export const mathEpoch = shallowRef(0);

/** Start loading KaTeX and its CSS (bundled fonts, no CDN); resolves when both are in. */
export function loadKatex(): Promise<void> {
  loading ??= Promise.all([import("katex"), import("katex/dist/katex.min.css")]).then(([mod]) => {
    katex = mod.default;
    mathEpoch.value += 1;
  });
  return loading;
}

/** Whether a formula can be typeset now (KaTeX loaded); tests await `loadKatex()` first. */
export function katexReady(): boolean {
  return katex !== null;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** HTML for one formula: KaTeX's markup, its source while pending, or source plus the error. */
export function renderFormula(tex: string, display: boolean, pending: boolean): string {
  const cls = display ? "math math-display" : "math math-inline";
  const tag = display ? "div" : "span";
  const data = `data-tex="${escapeHtml(tex)}" data-display="${display ? "1" : "0"}"`;
  const source = display ? `$$${tex}$$` : `$${tex}$`;
  if (pending || katex === null) {
    if (!pending) void loadKatex();
    return `<${tag} class="${cls} math-pending" ${data}><code>${escapeHtml(source)}</code></${tag}>`;
  }
  try {
    // trust: false keeps \href, \url, \includegraphics and \html… out; output "html" only, so the
    // sanitiser needs no MathML (model/markdown.ts keeps KaTeX's spans, styles and SVG paths).
    const html = katex.renderToString(tex, {
      displayMode: display,
      throwOnError: true,
      trust: false,
      strict: "ignore",
      output: "html",
      maxExpand: 500,
      maxSize: 50,
    });
    return `<${tag} class="${cls}" ${data}>${html}</${tag}>`;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return (
      `<${tag} class="${cls} math-error" ${data}><code class="math-source">${escapeHtml(source)}</code>` +
      `<span class="math-error-message">${escapeHtml(message)}</span></${tag}>`
    );
  }
}

function isPending(env: Env | undefined): boolean {
  return (env as { mathPending?: boolean } | undefined)?.mathPending === true;
}

const DOLLAR = 0x24;
const BACKSLASH = 0x5c;

/** `$…$`, `$$…$$`, `\(…\)`, `\[…\]` inside a paragraph. */
function mathInline(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  let open: string;
  let close: string;
  let display: boolean;
  if (src.charCodeAt(start) === BACKSLASH) {
    const next = src[start + 1];
    if (next === "(") [open, close, display] = ["\\(", "\\)", false];
    else if (next === "[") [open, close, display] = ["\\[", "\\]", true];
    else return false;
  } else if (src.charCodeAt(start) === DOLLAR) {
    if (src.charCodeAt(start + 1) === DOLLAR) [open, close, display] = ["$$", "$$", true];
    else [open, close, display] = ["$", "$", false];
  } else {
    return false;
  }
  const from = start + open.length;
  let end = from;
  for (;;) {
    end = src.indexOf(close, end);
    if (end < 0) return false;
    if (src.charCodeAt(end - 1) === BACKSLASH && open === "$") {
      end += 1; // an escaped \$ inside the formula
      continue;
    }
    break;
  }
  const tex = src.slice(from, end);
  // A backtick inside means the "formula" runs into a code span: not math.
  if (!tex.trim() || tex.includes("`")) return false;
  if (open === "$") {
    // Pandoc's rule, so prices ("$5 and $10") stay text: no space inside the dollars, and no
    // digit right after the closing one.
    if (/^\s/.test(tex) || /\s$/.test(tex)) return false;
    const after = src.charCodeAt(end + 1);
    if (after >= 0x30 && after <= 0x39) return false;
  }
  if (!silent) {
    const token = state.push(display ? "math_inline_display" : "math_inline", "math", 0);
    token.content = tex;
    token.markup = open;
  }
  state.pos = end + close.length;
  return true;
}

/** `$$` or `\[` starting a line: a display formula up to the closing `$$` / `\]`. */
function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const first = state.bMarks[startLine] + state.tShift[startLine];
  const max = state.eMarks[startLine];
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const line = state.src.slice(first, max);
  let close: string;
  if (line.startsWith("$$")) close = "$$";
  else if (line.startsWith("\\[")) close = "\\]";
  else return false;
  if (silent) return true;
  const rest = line.slice(2);
  let tex: string;
  let next = startLine;
  const sameLine = rest.indexOf(close);
  if (sameLine >= 0) {
    if (rest.slice(sameLine + 2).trim()) return false; // text after it: leave it to the inline rule
    tex = rest.slice(0, sameLine);
  } else {
    const lines = [rest];
    let closed = false;
    for (next = startLine + 1; next < endLine; next++) {
      const text = state.src.slice(state.bMarks[next] + state.tShift[next], state.eMarks[next]);
      const at = text.indexOf(close);
      if (at >= 0 && !text.slice(at + 2).trim()) {
        lines.push(text.slice(0, at));
        closed = true;
        break;
      }
      lines.push(text);
    }
    // Unclosed: the formula runs to the end (like an unclosed fence), so a streaming block that
    // has not closed yet keeps its shape; its render waits for the block anyway.
    if (!closed) next = endLine - 1;
    tex = lines.join("\n");
  }
  state.line = next + 1;
  const token = state.push("math_block", "math", 0);
  token.block = true;
  token.content = tex.trim();
  token.markup = line.slice(0, 2);
  token.map = [startLine, state.line];
  return true;
}

/** Add the math rules to `md`. */
export function mathPlugin(md: MarkdownIt): void {
  md.inline.ruler.before("escape", "math_inline", mathInline);
  md.block.ruler.before("fence", "math_block", mathBlock, { alt: ["paragraph", "reference", "blockquote", "list"] });
  md.renderer.rules.math_inline = (tokens, idx, _o, env?: Env) => renderFormula(tokens[idx].content, false, isPending(env));
  md.renderer.rules.math_inline_display = (tokens, idx, _o, env?: Env) =>
    renderFormula(tokens[idx].content, true, isPending(env));
  md.renderer.rules.math_block = (tokens, idx, _o, env?: Env) => renderFormula(tokens[idx].content, true, isPending(env)) + "\n";
}
