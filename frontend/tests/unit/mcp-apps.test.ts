import { describe, expect, it } from "vitest";
import { blocksText, frameAllow, hostCapabilities, hostContext, openableLink } from "@/model/mcpApps";
import { SANDBOXED_FRAME_ATTRIBUTES } from "@/model/sandboxedFrame";

describe("MCP App frames", () => {
  it("keep every powerful feature off until the person allowed one", () => {
    expect(frameAllow([])).toBe(SANDBOXED_FRAME_ATTRIBUTES.allow);
    const camera = frameAllow(["camera"]);
    expect(camera).toContain("camera *");
    expect(camera).toContain("microphone 'none'");
    expect(camera).toContain("clipboard-write 'none'");
    expect(frameAllow(["clipboardWrite"])).toContain("clipboard-write *");
  });

  it("tell the App only what it declared and was granted", () => {
    const caps = hostCapabilities({ connect: ["http://127.0.0.1:9"], resources: [], frames: [] }, ["microphone"]);
    expect(caps.sandbox).toEqual({
      permissions: { microphone: {} },
      csp: { connectDomains: ["http://127.0.0.1:9"], resourceDomains: [], frameDomains: [] },
    });
    expect(caps.serverTools).toEqual({});
  });

  it("give the host context: theme, language, inline display, the tool", () => {
    const ctx = hostContext({ theme: "dark", locale: "zh-CN", platform: "web", tool: { name: "get-time", description: "d", inputSchema: {} }, maxHeight: 900 });
    expect(ctx).toMatchObject({ theme: "dark", locale: "zh-CN", displayMode: "inline", availableDisplayModes: ["inline"], platform: "web" });
    expect(ctx.toolInfo?.tool.name).toBe("get-time");
    expect(ctx.toolInfo?.tool.inputSchema).toEqual({ type: "object" });
  });

  it("read the text of content blocks and open only web links", () => {
    expect(blocksText([{ type: "text", text: "a" }, { type: "image", data: "x" }, { type: "text", text: "b" }])).toBe("a\nb");
    expect(blocksText("nope")).toBe("");
    expect(openableLink("https://example.com/x")).toBe("https://example.com/x");
    expect(openableLink("javascript:alert(1)")).toBeNull();
    expect(openableLink("file:///etc/passwd")).toBeNull();
    expect(openableLink("not a url")).toBeNull();
  });
});
