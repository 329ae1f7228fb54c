import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mermaidLabelText } from "../../dev/mermaidLabelText";

const chunks = join(__dirname, "../../node_modules/mermaid/dist/chunks/mermaid.core");

type Transform = (code: string, id: string) => { code: string } | null;
const transform = mermaidLabelText().transform as unknown as Transform;

function labelModule(): { id: string; code: string } {
  for (const name of readdirSync(chunks)) {
    const code = readFileSync(join(chunks, name), "utf-8");
    if (code.includes("function nonMarkdownToLines(")) return { id: `/x/node_modules/mermaid/dist/chunks/${name}`, code };
  }
  throw new Error("Mermaid's label module not found");
}

describe("the Mermaid label fix (issue 41 item 1)", () => {
  it("keeps every non-space character of a label word and decodes all character references", () => {
    const { id, code } = labelModule();
    const fixed = transform(code, id)?.code ?? "";
    expect(fixed).toContain(String.raw`.match(/<[^>]+>|\S+/g)`);
    expect(fixed).not.toContain(String.raw`[^\s<>]+/g`);
    expect(fixed).toContain('document.createElement("textarea")');
    // The fixed word rule on a label that lost its `>` before.
    expect("Rate > 0? a >= b".match(/<[^>]+>|\S+/g)).toEqual(["Rate", ">", "0?", "a", ">=", "b"]);
  });

  it("leaves other modules alone and fails the build when Mermaid changed the lines it fixes", () => {
    expect(transform("const a = 1;", "/x/src/main.ts")).toBeNull();
    const changed = "function nonMarkdownToLines(t) { return t.split(/ /); }";
    expect(() => transform(changed, "/x/node_modules/mermaid/dist/chunks/c.mjs")).toThrow(/Mermaid changed/);
  });
});
