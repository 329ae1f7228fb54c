import { afterEach, describe, expect, it } from "vitest";
import { defineComponent, h } from "vue";
import { FakeTransport } from "@/api/fake";
import type { SkillImportPreview } from "@/api/generated";
import McpBundlePreview from "@/components/mcp/McpBundlePreview.vue";
import SkillsHost from "@/components/skills/SkillsHost.vue";
import { mountWith, tick } from "./mount";

const PREVIEW: SkillImportPreview = {
  valid: true, name: "dropped", display_name: "Dropped", description: "A dropped Skill.", files: ["SKILL.md"],
  file_count: 1, size: 120, warnings: [], problems: [], conflict: null,
};

afterEach(() => {
  document.body.innerHTML = "";
});

const backdrops = () => document.body.querySelectorAll(".backdrop").length;
const $ = (testId: string) => document.body.querySelector<HTMLElement>(`[data-testid="${testId}"]`);

describe("dialogs (issue 41)", () => {
  it("take focus when they open, so Esc closes them at once, and give it back", async () => {
    const fake = new FakeTransport().on("skills.import_preview", () => PREVIEW);
    const { wrapper } = await mountWith(SkillsHost, { fake });
    const before = document.createElement("button");
    document.body.append(before);
    before.focus();
    fake.emit([{ type: "import_skill_requested", path: "/tmp/dropped.zip" }]);
    await tick();
    await tick();
    const dialog = $("skill-preview");
    expect(dialog).not.toBeNull();
    expect(dialog?.contains(document.activeElement)).toBe(true);
    document.activeElement?.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    await tick();
    expect($("skill-preview")).toBeNull();
    expect(document.activeElement).toBe(before);
    wrapper.unmount();
  });

  it("never stack: a second one waits until the first is closed, then takes focus", async () => {
    const fake = new FakeTransport().on("skills.import_preview", () => PREVIEW);
    const both = defineComponent({ render: () => [h(SkillsHost), h(McpBundlePreview)] });
    const { wrapper } = await mountWith(both, { fake });
    fake.emit([{ type: "import_skill_requested", path: "/tmp/dropped.zip" }]);
    await tick();
    await tick();
    fake.emit([{ type: "bundle_open_requested", path: "/tmp/kit.mcpb" }]);
    await tick();
    await tick();
    expect(backdrops()).toBe(1);
    expect($("skill-preview")).not.toBeNull();
    expect($("bundle-preview")).toBeNull();
    $("skill-preview-cancel")?.click();
    await tick();
    await tick();
    expect(backdrops()).toBe(1);
    const second = $("bundle-preview");
    expect(second).not.toBeNull();
    expect(second?.contains(document.activeElement)).toBe(true);
    wrapper.unmount();
  });
});
