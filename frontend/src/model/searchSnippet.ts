/**
 * A search hit's snippet is a stretch of the message's Markdown source on one line (app/store/
 * search.py). The sidebar shows it as the reader saw the message: plain text, without the
 * Markdown marks (`**`, backticks and fences, heading hashes, link targets). Each part is cleaned
 * on its own, so the highlighted matches stay where they are. Marks that are also ordinary text
 * (`>`, `-`, `_` in names) are removed only where they can only be marks: at the snippet's start.
 */
import type { SnippetPart } from "@/api/generated";

const RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/```[\w+-]*/g, ""], // code fences and their language
  [/`/g, ""],
  [/\*\*|__|~~/g, ""],
  [/(^|[\s(])\*(?=\S)([^*]*?\S)\*(?=[\s).,;:!?…]|$)/g, "$1$2"], // *emphasis*
  [/!?\[([^\]]*)\]\([^)\s]*\)/g, "$1"], // [text](url) and ![alt](src)
  [/(^|\s)#{1,6}\s+/g, "$1"], // headings (the snippet is one line: a heading may be mid-way)
  [/\s{2,}/g, " "], // where a removed mark stood between spaces
];
const LEADING = /^(?:\s*(?:>|[-*+]|\d+[.)])\s+)+/; // a quote or list item the snippet starts in

export function plainSnippet(parts: readonly SnippetPart[]): SnippetPart[] {
  const out = parts.map((part) => ({ ...part, text: RULES.reduce((text, [re, to]) => text.replace(re, to), part.text) }));
  if (out.length > 0 && !out[0].hit) out[0] = { ...out[0], text: out[0].text.replace(LEADING, "") };
  return out.filter((part) => part.text !== "" || part.hit);
}
