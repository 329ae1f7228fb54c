import { describe, expect, it } from "vitest";
import { nearBottom } from "@/composables/useAutoScroll";
import { matches } from "@/composables/useShortcuts";
import { applyTheme, resolveTheme } from "@/composables/useTheme";
import { buildTranscript, prettyJson } from "@/model/transcript";
import { groupModels } from "@/stores/providers";
import { systemLanguage } from "@/stores/settings";
import { message } from "./helpers";

describe("transcript", () => {
  it("groups a turn's assistant and tool messages into one entry", () => {
    const entries = buildTranscript([
      message(1, "user", "q1", { turn_id: "t1" }),
      message(2, "assistant", "Looking", { turn_id: "t1", tool_calls: [{ id: "a", name: "glob", arguments: "{}" }] }),
      message(3, "tool", "x.py", { turn_id: "t1", tool_call_id: "a" }),
      message(4, "assistant", "Found x.py", { turn_id: "t1" }),
      message(5, "user", "q2", { turn_id: "t2" }),
      message(6, "assistant", "ok", { turn_id: "t2" }),
    ]);
    expect(entries.map((e) => e.kind)).toEqual(["user", "assistant", "user", "assistant"]);
    const first = entries[1];
    if (first.kind !== "assistant") throw new Error();
    expect(first.parts.map((p) => p.kind)).toEqual(["text", "tool", "text"]);
    expect(first.state).toBe("done");
  });

  it("pretty-prints JSON arguments and leaves other text alone", () => {
    expect(prettyJson('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJson("{broken")).toBe("{broken");
    expect(prettyJson("  ")).toBe("");
  });
});

describe("small pure helpers", () => {
  it("resolves and applies themes", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
    const root = document.createElement("html");
    applyTheme(root, "dark");
    expect(root.classList.contains("theme-dark")).toBe(true);
    applyTheme(root, "light");
    expect(root.className).toBe("theme-light");
  });

  it("matches shortcuts with Ctrl or Cmd", () => {
    const s = { key: "n", mod: true, run: () => undefined };
    const ev = { key: "N", ctrlKey: false, metaKey: true, shiftKey: false, altKey: false };
    expect(matches(ev, s)).toBe(true);
    expect(matches({ ...ev, metaKey: false }, s)).toBe(false);
    expect(matches({ ...ev, ctrlKey: true, metaKey: false, altKey: true }, s)).toBe(false);
  });

  it("groups models by provider", () => {
    const m = (provider_id: string, model: string) => ({ provider_id, provider_name: provider_id.toUpperCase(), model, supports_tools: null, supports_vision: null });
    const groups = groupModels([m("a", "z"), m("b", "y"), m("a", "x")]);
    expect(groups.map((g) => [g.providerName, g.models.map((x) => x.model)])).toEqual([
      ["A", ["x", "z"]],
      ["B", ["y"]],
    ]);
  });

  it("guesses the language and the scroll-follow state", () => {
    expect(systemLanguage({ language: "zh-TW" })).toBe("zh-CN");
    expect(systemLanguage({ language: "de-DE" })).toBe("en");
    expect(nearBottom({ scrollTop: 900, scrollHeight: 1500, clientHeight: 560 })).toBe(true);
    expect(nearBottom({ scrollTop: 100, scrollHeight: 1500, clientHeight: 560 })).toBe(false);
  });
});
