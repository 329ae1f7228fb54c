/**
 * Incremental Markdown for a streaming reply: each update parses and renders only the open
 * (last) top-level block; the blocks before it are finished and their sanitised HTML is kept.
 *
 * Why that is exact: in CommonMark a top-level block that another top-level block follows is
 * closed for good, and the parser starts the next one in a fresh top-level state, so the text
 * after the last closed block parses the same on its own. The one thing that reaches across
 * blocks, link reference definitions, makes `renderTopLevelBlocks` refuse, and the source is
 * then rendered whole. Joined, the chunks always equal `renderMarkdown(source)` (tested over
 * random split points in frontend/tests/unit/blocks.test.ts).
 */
import { renderPendingMarkdown, renderTopLevelBlocks } from "./markdown";

/** Character offset where line `line` of `text` starts. */
function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let i = 0; i < line; i++) {
    const next = text.indexOf("\n", at);
    if (next < 0) return text.length;
    at = next + 1;
  }
  return at;
}

/** A renderer for one growing source: call it with the whole text after every delta. */
export function createBlockRenderer(): (source: string) => string[] {
  let done = ""; // the source text of the finished blocks (a prefix of every later source)
  let finished: string[] = [];
  return (raw: string): string[] => {
    // markdown-it normalises line breaks the same way; doing it first keeps line numbers aligned.
    const source = raw.includes("\r") ? raw.replace(/\r\n?/g, "\n") : raw;
    if (!source.startsWith(done)) {
      done = "";
      finished = [];
    }
    const rest = source.slice(done.length);
    const blocks = renderTopLevelBlocks(rest, true);
    if (blocks === null) return [renderPendingMarkdown(source)];
    if (blocks.length > 1) {
      const open = blocks[blocks.length - 1];
      finished = [...finished, ...blocks.slice(0, -1).map((b) => b.html)];
      done += rest.slice(0, lineOffset(rest, open.line));
      return [...finished, open.html];
    }
    return blocks.length === 1 ? [...finished, blocks[0].html] : [...finished];
  };
}
