/**
 * A diagram shows exactly the text of its source (issue 41 item 1, docs/decisions.md 291).
 *
 * With SVG labels (`htmlLabels: false`, so no foreignObject: decision 151) Mermaid 12 splits a
 * label into words with `/<[^>]+>|[^\s<>]+/g`, which drops every `>` that is not closing a tag
 * (`Rate > 0?` became "Rate 0?", `a >= b` "a = b"; a `<` survives only because strict mode has
 * already escaped it to `&lt;`). And it decodes only `&amp;`, `&lt;` and `&gt;` in a word, so
 * Mermaid's own codes for other characters (`#quot;`, `#35;`) showed as `&quot;`, `&#35;`.
 * Mermaid has no option for either, so the build fixes the two lines in its module: a word is
 * any run without white space, and a word's character references are decoded as the HTML
 * parser does (in a detached `textarea`, which creates no element and runs nothing). The build
 * fails if Mermaid changes these lines, so an upgrade cannot silently bring the bug back.
 */
import type { Plugin } from "vite";

const FIXES: ReadonlyArray<readonly [string, string]> = [
  [String.raw`.match(/<[^>]+>|[^\s<>]+/g)`, String.raw`.match(/<[^>]+>|\S+/g)`],
  [
    "function decodeHTMLEntities(text) {\n",
    'function decodeHTMLEntities(text) {\n  if (typeof document !== "undefined") {\n' +
      '    const area = document.createElement("textarea");\n    area.innerHTML = text;\n    return area.value;\n  }\n',
  ],
];

/** The Mermaid module that writes SVG labels is recognised by these two functions. */
const MARKER = "function nonMarkdownToLines(";

export function mermaidLabelText(): Plugin {
  return {
    name: "cashcode-mermaid-label-text",
    enforce: "pre",
    transform(code, id) {
      if (!id.includes("/node_modules/mermaid/") || !code.includes(MARKER)) return null;
      let fixed = code;
      for (const [from, to] of FIXES) {
        if (!fixed.includes(from)) {
          throw new Error(`Mermaid changed: "${from.trim()}" not found in ${id} (see dev/mermaidLabelText.ts)`);
        }
        fixed = fixed.replace(from, to);
      }
      return { code: fixed, map: null };
    },
  };
}
