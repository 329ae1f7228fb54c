import { describe, expect, it, vi } from "vitest";
import { createBlockRenderer, splitBlocks } from "@/model/blocks";

describe("streaming blocks", () => {
  it("splits at blank lines outside code fences; the last line stays in the tail", () => {
    expect(splitBlocks("a\n\nb\n\nc")).toEqual({ blocks: ["a", "b"], tail: "c" });
    expect(splitBlocks("```\nx\n\ny\n```\n\nz")).toEqual({ blocks: ["```\nx\n\ny\n```"], tail: "z" });
    expect(splitBlocks("```\nopen\n\nstill code")).toEqual({ blocks: [], tail: "```\nopen\n\nstill code" });
    expect(splitBlocks("one")).toEqual({ blocks: [], tail: "one" });
  });

  it("renders each finished block once", () => {
    const render = vi.fn((s: string) => `<p>${s}</p>`);
    const blocks = createBlockRenderer(render);
    let text = "";
    for (const piece of ["Hel", "lo\n", "\nWor", "ld\n\n", "!"]) {
      text += piece;
      blocks(text);
    }
    expect(blocks(text)).toEqual(["<p>Hello</p>", "<p>World</p>", "<p>!</p>"]);
    expect(render.mock.calls.filter(([s]) => s === "Hello")).toHaveLength(1);
  });

  it("the concatenated output equals rendering each block of the final text", async () => {
    const { renderMarkdown } = await import("@/model/markdown");
    const blocks = createBlockRenderer(renderMarkdown);
    const text = "# T\n\n- a\n- b\n\n```js\nlet x = 1;\n\nx++;\n```\n\ndone";
    let out: string[] = [];
    for (let i = 1; i <= text.length; i++) out = blocks(text.slice(0, i));
    const host = document.createElement("div");
    host.innerHTML = out.join("");
    expect(host.querySelector("h1")?.textContent).toBe("T");
    expect(host.querySelectorAll("li")).toHaveLength(2);
    expect(host.querySelector("pre code")?.textContent).toBe("let x = 1;\n\nx++;\n");
  });
});
