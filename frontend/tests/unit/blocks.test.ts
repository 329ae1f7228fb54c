import { describe, expect, it } from "vitest";
import { createBlockRenderer } from "@/model/blocks";
import { renderMarkdown } from "@/model/markdown";

// Real Markdown of the kinds a model writes: fences (with blank lines inside, tildes, a language,
// unclosed), tight / loose / nested / ordered lists, tables, CJK, quotes, setext headings, rules,
// indented code, inline markup across lines, links and line-break styles.
const DOCS: string[] = [
  [
    "# 安装指南",
    "",
    "先运行下面的命令：",
    "",
    "```bash",
    "pip install cashcode",
    "",
    "cashcode ask \"你好\"",
    "```",
    "",
    "1. 打开设置",
    "2. 选择**模型**，然后点击 `保存`",
    "",
    "   第二步的补充说明。",
    "3. 完成",
    "",
    "| 名称 | 说明 |",
    "|---|:---:|",
    "| ask | 单次提问 |",
    "| serve | 在浏览器中使用 |",
    "",
    "> 提示：按 Ctrl+K 搜索。",
    "> 第二行 *强调*",
    "",
    "最后一段，含有链接 https://example.com 与中文标点。",
  ].join("\n"),
  [
    "Here is a fix for `parse()`:",
    "",
    "```python",
    "def parse(text: str) -> list[str]:",
    "    items = []",
    "",
    "    for line in text.splitlines():",
    "        if line.startswith('- '):",
    "            items.append(line[2:])",
    "    return items",
    "```",
    "",
    "Why it works",
    "------------",
    "",
    "- The loop reads each line",
    "  and keeps **list items",
    "  only**.",
    "- Nested:",
    "  - one",
    "  - two",
    "",
    "- A loose item after a blank line.",
    "",
    "***",
    "",
    "    indented code",
    "    block",
    "",
    "~~~~",
    "tilde fence with ``` inside",
    "~~~~",
    "",
    "3) starts at three",
    "4) four",
    "",
    "Title",
    "=====",
    "Text right after a heading, with _emphasis",
    "over two lines_ and a [link](https://example.com/a_b).",
  ].join("\n"),
  [
    "Line with trailing spaces  ",
    "hard break above.\r\n\r\nA paragraph\r\nwith CRLF.",
    "",
    "* star list",
    "+ plus list",
    "",
    "```",
    "unclosed fence at the end",
    "",
    "still code",
  ].join("\n"),
  ["See [the docs][d] and [this].", "", "[d]: https://example.com/docs", "", "[this]: /x \"T\"", "", "After."].join("\n"),
  ["- a", "- b", "", "", "- c", "", "  continued", "", "text", "", "10. ten", "11. eleven", "", "| a |", "| - |", "| 1 |"].join("\n"),
];

/** A small seeded PRNG (mulberry32), so a failure names a split that can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Feed `doc` in pieces of `sizes()` characters, as a stream would. The output is compared with a
 * full render whenever a block was finished (the moment a block's HTML is frozen), on a share of
 * the other steps (`check`), and at the end; a wrongly frozen block stays in every later output.
 */
function streamAndCompare(doc: string, sizes: () => number, check: () => boolean, label: string): number {
  const render = createBlockRenderer();
  let at = 0;
  let chunks = 0;
  let compared = 0;
  while (at < doc.length) {
    at = Math.min(doc.length, at + sizes());
    const prefix = doc.slice(0, at);
    const out = render(prefix);
    if (out.length === chunks && at < doc.length && !check()) continue;
    chunks = out.length;
    compared += 1;
    const want = renderMarkdown(prefix);
    if (out.join("") !== want) expect({ label, at, got: out.join("") }).toEqual({ label, at, got: want });
  }
  return compared;
}

describe("incremental streaming Markdown", () => {
  it.each(DOCS.map((doc, i) => [i, doc] as const))("equals a full render after every delta (doc %i, random splits)", (i, doc) => {
    let compared = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const random = prng(seed * 100 + i);
      const max = [1, 3, 8, 24][seed % 4];
      compared += streamAndCompare(doc, () => 1 + Math.floor(random() * max), () => random() < 0.1, `seed ${seed}`);
    }
    expect(compared).toBeGreaterThan(40);
  }, 120_000);

  it("keeps finished blocks and renders only the open one", () => {
    const render = createBlockRenderer();
    const first = render("# T\n\npara one\n\n- a\n");
    const second = render("# T\n\npara one\n\n- a\n- b\n\nlast");
    expect(first).toHaveLength(3);
    expect(second.slice(0, 2)).toEqual(first.slice(0, 2));
    expect(second).toHaveLength(4);
    expect(second[3]).toBe("<p>last</p>\n");
  });

  it("starts over when the source is replaced, and renders link references whole", () => {
    const render = createBlockRenderer();
    render("one\n\ntwo\n\nthree");
    expect(render("other\n\ntext").join("")).toBe(renderMarkdown("other\n\ntext"));
    const withRef = "[a] b\n\nc\n\n[a]: https://example.com";
    expect(render(withRef)).toEqual([renderMarkdown(withRef)]);
    expect(renderMarkdown(withRef)).toContain('href="https://example.com"');
  });
});
