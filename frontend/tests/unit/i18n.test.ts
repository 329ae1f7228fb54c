import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { dictionaries, translate } from "@/i18n";
import { en } from "@/i18n/en";
import { zhCN } from "@/i18n/zh-CN";

const SRC = join(__dirname, "../../src");

function vueFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return vueFiles(path);
    return path.endsWith(".vue") ? [path] : [];
  });
}

function template(source: string): string {
  const start = source.indexOf("<template>");
  const end = source.lastIndexOf("</template>");
  return start >= 0 && end > start ? source.slice(start + "<template>".length, end) : "";
}

/** Text a user would read that does not come from t(): text nodes and literal label attributes. */
function hardCodedText(tpl: string): string[] {
  const withoutComments = tpl.replace(/<!--[\s\S]*?-->/g, "");
  const found: string[] = [];
  for (const m of withoutComments.matchAll(/\s(?:aria-label|title|placeholder|alt|label)="([^"]*)"/g)) {
    if (/[A-Za-z]{2,}/.test(m[1])) found.push(m[0].trim());
  }
  const text = withoutComments
    .replace(/\{\{[\s\S]*?\}\}/g, " ")
    .replace(/<(?:"[^"]*"|'[^']*'|[^'">])*>/g, " ");
  for (const chunk of text.split(/\s{2,}|\n/)) {
    if (/[A-Za-z]{2,}/.test(chunk)) found.push(chunk.trim());
  }
  return found;
}

describe("i18n", () => {
  it("English and Simplified Chinese have identical keys and no empty values", () => {
    expect(Object.keys(zhCN).sort()).toEqual(Object.keys(en).sort());
    for (const [lang, dict] of Object.entries(dictionaries)) {
      for (const [key, value] of Object.entries(dict)) {
        expect(value.trim(), `${lang}:${key}`).not.toBe("");
      }
    }
  });

  it("keeps placeholders consistent across languages", () => {
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(names(zhCN[key]), key).toEqual(names(en[key]));
    }
  });

  it("interpolates parameters", () => {
    expect(translate("en", "about.version", { version: "1.2" })).toBe("Version 1.2");
    expect(translate("zh-CN", "approval.more", { count: 3 })).toBe("还有 3 个等待中");
  });

  it("the template check catches literal text and label attributes", () => {
    const tpl = '<div :x="a > 0"><button aria-label="Close">{{ t("chat.stop") }}</button><p>Hello there</p>×</div>';
    expect(hardCodedText(tpl)).toEqual(['aria-label="Close"', "Hello there ×"]);
  });

  it("templates carry no hard-coded English (all text goes through t())", () => {
    const offenders: string[] = [];
    for (const file of vueFiles(SRC)) {
      for (const text of hardCodedText(template(readFileSync(file, "utf8")))) {
        offenders.push(`${relative(SRC, file)}: ${text}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
