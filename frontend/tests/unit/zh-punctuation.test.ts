// Chinese text uses full-width punctuation (issue 41): `，` `：` `；` `？` `！` `（` `）`, not the
// ASCII `,` `:` `;` `?` `!` `(` `)`, wherever the mark sits next to a Chinese character.
//
// The rule, kept small: in every string literal holding a Chinese character in the catalogs below,
// an ASCII mark of that set whose nearest non-space neighbour (before or after it) is a Chinese
// character fails. Left out first, since their ASCII is meant: placeholders `{name}`, `code`
// spans, URLs, a Latin word with a bracketed ending (`http(s)`), and a key chord's key
// (`Ctrl/⌘+,`). So "安装将执行以下命令:" fails; "ZIP 路径必须使用“/”", "ask_writes（写入前询问）",
// "Ctrl/⌘+, 设置" and "{a}, {b}" pass. ASCII marks among Latin words, paths, numbers and
// key names ("darwin, win32", "a:b") never touch a Chinese character, so they pass too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../../..");
const CATALOGS = [
  "frontend/src/i18n/zh-CN.ts",
  "frontend/src/i18n/errors.ts", // the provider errors' Chinese
  "frontend/src/i18n/builtins.ts", // the built-in tools', servers' and Skills' Chinese
  "app/contracts/error_texts.py", // English today: checked in case Chinese is added
];

const HAN = "[\\u3400-\\u9fff\\uf900-\\ufaff]";
const CHINESE = new RegExp(HAN);
const MISPLACED = new RegExp(`(?<=${HAN}) *[,:;?!()]|[,:;?!()](?= *${HAN})`, "g");
const MEANT = [
  /\{\w+\}/g, // placeholders
  /`[^`]*`/g, // code
  /https?:\/\/\S+/g, // URLs
  /[A-Za-z]+\([A-Za-z]+\)/g, // http(s)
  /\+[,:;?!]/g, // the key of a shortcut: Ctrl+,
];

function strings(source: string): string[] {
  return [...source.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)].map((m) => m[1]).filter((s) => CHINESE.test(s));
}

function misplaced(text: string): string[] {
  const bare = MEANT.reduce((t, meant) => t.replace(meant, "\u2060"), text);
  return bare.match(MISPLACED) ?? [];
}

describe("full-width punctuation in the Chinese catalogs (issue 41)", () => {
  it("the rule catches ASCII marks next to Chinese and lets meant ASCII be", () => {
    for (const bad of ["安装将执行以下命令:", "服务器,安装", "(每行一个文件夹)", "隐藏 (Esc)", "好吗?", "完成!", "甲;乙"]) {
      expect(misplaced(bad), bad).not.toEqual([]);
    }
    for (const good of [
      "安装将执行以下命令：", "ZIP 路径必须使用“/”", "“{name}”的路径带有盘符或“:”", "{a}, {b} 个",
      "Ctrl/⌘+, 设置", "http(s) 网址", "运行 `cashcode serve --port 8080`", "见 https://example.com/a,b",
      "适用于 darwin, win32", "ask_writes（写入前询问）",
    ]) {
      expect(misplaced(good), good).toEqual([]);
    }
  });

  it.each(CATALOGS)("%s has none", (file) => {
    const found = strings(readFileSync(join(ROOT, file), "utf8")).filter((s) => misplaced(s).length > 0);
    expect(found).toEqual([]);
  });
});
