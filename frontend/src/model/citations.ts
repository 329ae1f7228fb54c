/**
 * Knowledge-base citations in rendered answers: `path:12-30` (or `path:12`) becomes a link when
 * the backend says the path is a file of a knowledge base (`knowledge.resolve`).
 *
 * Rendering is synchronous, resolving is not: the markdown-it rule asks `lookup` for each
 * candidate; a path not asked yet renders as plain text and is queued, one `knowledge.resolve`
 * call answers the queue, and `citationEpoch` then changes so views render again (as
 * `mathEpoch` does for KaTeX). Answers are cached per path for the page's life.
 *
 * Where: plain text outside links, and an inline code span that is exactly a citation (models
 * often write `path:12-30` in backticks). Never inside fenced or indented code blocks (those are
 * block tokens this rule does not visit), never inside an existing link. The link is an anchor
 * with `href="#kb-cite"` and data attributes; DOMPurify keeps it (model/markdown.ts) and
 * composables/useCitationLinks.ts turns a click into "open the file".
 */
import type { MarkdownIt, StateCore, Token } from "markdown-it";
import { shallowRef } from "vue";

export interface Citation {
  path: string; // as written
  start: number;
  end: number;
}

export interface CitedFile {
  base: string;
  path: string; // absolute, as indexed
  folder: string | null;
}

export interface OpenCitation {
  path: string; // absolute, as indexed
  start: number;
  end: number;
}

/** A file path (absolute POSIX, Windows drive, `~/`, or relative with a folder or an extension)
 * then `:start` and an optional `-end`. Not after a word, slash or colon (URLs, `a:b:3`). */
const PATH = String.raw`(?:~[\\/]|[A-Za-z]:[\\/]|[\\/])?(?:[\w.@+~-]+[\\/])*[\w@+~-][\w.@+~-]*`;
const CITATION_IN_TEXT = new RegExp(String.raw`(?<![\w/\\:.~@+-])(${PATH}):(\d{1,9})(?:[-–](\d{1,9}))?(?![\w:]|[-–]\d)`, "g");
const WHOLE_CITATION = /^(\S(?:.*\S)?):(\d{1,9})(?:[-–](\d{1,9}))?$/;

function looksLikeFile(path: string): boolean {
  return /[\\/]/.test(path) || /\.[A-Za-z0-9]{1,10}$/.test(path);
}

function citation(path: string, start: string, end: string | undefined): Citation | null {
  const a = Number(start);
  const b = end === undefined ? a : Number(end);
  if (!looksLikeFile(path) || a < 1 || b < a) return null;
  return { path, start: a, end: b };
}

/** Every citation in plain text, with where it is. */
export function findCitations(text: string): { index: number; length: number; cite: Citation }[] {
  const out: { index: number; length: number; cite: Citation }[] = [];
  for (const m of text.matchAll(CITATION_IN_TEXT)) {
    const cite = citation(m[1], m[2], m[3]);
    if (cite) out.push({ index: m.index ?? 0, length: m[0].length, cite });
  }
  return out;
}

/** The citation an inline code span is, when it is nothing else (spaces allowed in its path). */
export function wholeCitation(code: string): Citation | null {
  const m = WHOLE_CITATION.exec(code.trim());
  return m ? citation(m[1], m[2], m[3]) : null;
}

// ---- what the backend said about each path ---------------------------------------------------

export type Resolver = (paths: string[]) => Promise<(CitedFile | null)[]>;

const known = new Map<string, CitedFile | null>();
const queued = new Set<string>();
let resolver: Resolver | null = null;
let flushing = false;
/** Changes when new answers arrive: views that render Markdown read it to render again. */
export const citationEpoch = shallowRef(0);
/** The citation the viewer panel shows (browser), or null. */
export const openCitation = shallowRef<OpenCitation | null>(null);

const BATCH = 100;

/** What is known of a cited path: the file, null (not a knowledge file), or undefined (asked
 * now; the answer comes with the next `citationEpoch`). */
export function lookupCitation(path: string): CitedFile | null | undefined {
  if (known.has(path)) return known.get(path);
  queued.add(path);
  if (resolver && !flushing) queueMicrotask(flush);
  return undefined;
}

export function setCitationResolver(next: Resolver | null): void {
  resolver = next;
  if (next && queued.size && !flushing) queueMicrotask(flush);
}

/** Forget every answer (tests; after a knowledge base changed). */
export function resetCitations(): void {
  known.clear();
  queued.clear();
  citationEpoch.value += 1;
}

async function flush(): Promise<void> {
  if (flushing || !resolver || queued.size === 0) return;
  flushing = true;
  try {
    while (queued.size && resolver) {
      const paths = [...queued].slice(0, BATCH);
      for (const p of paths) queued.delete(p);
      let files: (CitedFile | null)[];
      try {
        files = await resolver(paths);
      } catch {
        files = paths.map(() => null); // unreachable backend: plain text, asked again after a reload
      }
      paths.forEach((p, i) => known.set(p, files[i] ?? null));
    }
  } finally {
    flushing = false;
  }
  citationEpoch.value += 1;
}

// ---- the markdown-it rule ------------------------------------------------------------------

function linkTokens(state: StateCore, file: CitedFile, cite: Citation, inner: Token[]): Token[] {
  const open = new state.Token("link_open", "a", 1);
  open.attrs = [
    ["href", "#kb-cite"],
    ["class", "kb-cite"],
    ["data-kb-path", file.path],
    ["data-kb-start", String(cite.start)],
    ["data-kb-end", String(cite.end)],
    ["title", `${file.base} · ${file.path}:${cite.start}-${cite.end}`],
  ];
  const close = new state.Token("link_close", "a", -1);
  return [open, ...inner, close];
}

function textToken(state: StateCore, content: string): Token {
  const token = new state.Token("text", "", 0);
  token.content = content;
  return token;
}

function linkified(state: StateCore, children: Token[], lookup: typeof lookupCitation): Token[] | null {
  let changed = false;
  let inLink = 0;
  const out: Token[] = [];
  for (const child of children) {
    if (child.type === "link_open") inLink += 1;
    if (child.type === "link_close") inLink -= 1;
    if (inLink > 0 || (child.type !== "text" && child.type !== "code_inline")) {
      out.push(child);
      continue;
    }
    if (child.type === "code_inline") {
      const cite = wholeCitation(child.content);
      const file = cite ? lookup(cite.path) : null;
      if (cite && file) {
        out.push(...linkTokens(state, file, cite, [child]));
        changed = true;
      } else out.push(child);
      continue;
    }
    let last = 0;
    for (const found of findCitations(child.content)) {
      const file = lookup(found.cite.path);
      if (!file) continue;
      if (found.index > last) out.push(textToken(state, child.content.slice(last, found.index)));
      const label = child.content.slice(found.index, found.index + found.length);
      out.push(...linkTokens(state, file, found.cite, [textToken(state, label)]));
      last = found.index + found.length;
      changed = true;
    }
    if (last === 0) out.push(child);
    else if (last < child.content.length) out.push(textToken(state, child.content.slice(last)));
  }
  return changed ? out : null;
}

/** The markdown-it plugin; `lookup` is the cache above unless a test passes its own. */
export function citationsPlugin(md: MarkdownIt, lookup: typeof lookupCitation = lookupCitation): void {
  md.core.ruler.push("kb_citations", (state) => {
    for (const block of state.tokens) {
      if (block.type !== "inline" || !block.children) continue;
      const next = linkified(state, block.children, lookup);
      if (next) block.children = next;
    }
  });
}
