import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { SkillDetail, SkillImportPreview, SkillItem } from "@/api/generated";
import { ApiError } from "@/api/transport";
import SkillsHost from "@/components/skills/SkillsHost.vue";
import SkillsView from "@/views/SkillsView.vue";
import { mountWith, tick } from "./mount";
import { settingsView } from "./helpers";

afterEach(() => {
  document.body.innerHTML = "";
});

function item(name: string, extra: Partial<SkillItem> = {}): SkillItem {
  return {
    name, display_name: null, description: `${name} helper`, source: "user", version: "1.0", tags: [],
    enabled: true, selectable: true, writable: true, sha256: "a".repeat(64), path: `~/data/${name}`,
    shadows: [], shadowed_by: null, missing: [], warnings: [], score: null, ...extra,
  };
}

function detail(skill: SkillItem): SkillDetail {
  return { skill, files: ["SKILL.md", "ref.md"], file_count: 2, body: "# Body", license: null, compatibility: null, allowed_tools: [], requires: {}, metadata: {} };
}

function preview(extra: Partial<SkillImportPreview> = {}): SkillImportPreview {
  return {
    valid: true, name: "dropped", display_name: "Dropped", description: "A dropped Skill.", files: ["SKILL.md"],
    file_count: 1, size: 120, warnings: ["The description is 1068 characters; the recommended limit is 1024"],
    problems: [], conflict: null, ...extra,
  };
}

function market(items: SkillItem[]): FakeTransport {
  const fake = new FakeTransport();
  fake.on("skills.list", (q) => {
    const found = items.filter((i) => !q.query || i.name.includes(q.query));
    const start = ((q.page ?? 1) - 1) * 20;
    return { items: found.slice(start, start + 20), total: found.length, page: q.page ?? 1, page_size: 20, invalid: [
      { source: "user", directory: "broken", path: "~/broken", reason: "SKILL.md needs instructions.", problems: [] },
    ] };
  });
  return fake;
}

describe("Skill Market", () => {
  it("lists with source badges and shadowing, pages, and searches", async () => {
    const items = [item("pdf", { shadows: [{ source: "external", path: "~/.claude/skills/pdf" }] }),
      ...Array.from({ length: 24 }, (_, i) => item(`s${i}`, { source: "builtin", writable: false }))];
    const { wrapper, fake } = await mountWith(SkillsView, { fake: market(items), path: "/skills" });
    await tick();
    expect(wrapper.get('[data-testid="skills-total"]').text()).toContain("25");
    expect(wrapper.findAll(".skill-row[data-skill]")).toHaveLength(20);
    expect(wrapper.get('[data-skill="pdf"]').text()).toContain("Shadows External");
    expect(wrapper.get('[data-skill="pdf"] [data-testid="skill-source"]').text()).toBe("User");
    expect(wrapper.get('[data-testid="skills-invalid"]').text()).toContain("user/broken");
    await wrapper.get('[data-testid="skills-next"]').trigger("click");
    await tick();
    expect(fake.callsTo("skills.list").at(-1)).toMatchObject({ page: 2 });
    expect(wrapper.findAll(".skill-row[data-skill]")).toHaveLength(5);
  });

  it("edits with the hash precondition and keeps the draft on a conflict", async () => {
    const fake = market([item("notes")]);
    fake.on("skills.get", () => detail(item("notes")));
    fake.on("skills.content", () => ({ name: "notes", content: "---\nname: notes\n---\nold", hash: "h1", source: "user", mutable: true, enabled: true }));
    fake.on("skills.versions", () => ({ versions: [{ id: "v1", reason: "replace", created_at: "2026-12-01", sha256: null }] }));
    fake.on("skills.save", () => {
      throw new ApiError("skills.save", "conflict", "changed");
    });
    const { wrapper } = await mountWith(SkillsView, { fake, path: "/skills" });
    await tick();
    await wrapper.get('[data-skill="notes"] .skill-open').trigger("click");
    await tick();
    expect(wrapper.get('[data-testid="skill-versions"]').text()).toContain("replace");
    await wrapper.get('[data-testid="skill-edit"]').trigger("click");
    await wrapper.get('[data-testid="skill-editor"]').setValue("my precious draft");
    await wrapper.get('[data-testid="skill-save"]').trigger("click");
    await tick();
    expect(fake.callsTo("skills.save")[0]).toEqual({ name: "notes", content: "my precious draft", base_hash: "h1" });
    expect(wrapper.find('[data-testid="skill-conflict"]').exists()).toBe(true);
    expect((wrapper.get('[data-testid="skill-editor"]').element as HTMLTextAreaElement).value).toBe("my precious draft");
  });

  it("deletes only after confirmation", async () => {
    const fake = market([item("notes")]);
    fake.on("skills.get", () => detail(item("notes")));
    fake.on("skills.content", () => ({ name: "notes", content: "x", hash: "h1", source: "user", mutable: true, enabled: true }));
    fake.on("skills.versions", () => ({ versions: [] }));
    fake.on("skills.delete", () => ({ ok: true as const }));
    const { wrapper } = await mountWith(SkillsView, { fake, path: "/skills" });
    await tick();
    await wrapper.get('[data-skill="notes"] .skill-open').trigger("click");
    await tick();
    await wrapper.get('[data-testid="skill-delete"]').trigger("click");
    expect(fake.callsTo("skills.delete")).toEqual([]);
    await wrapper.get('[data-testid="confirm-ok"]').trigger("click");
    await tick();
    expect(fake.callsTo("skills.delete")).toEqual([{ name: "notes" }]);
  });
});

describe("Skills host: drops and import requests", () => {
  it("opens the preview on import_skill_requested and imports", async () => {
    const fake = market([]);
    fake.on("skills.import_preview", () => preview());
    fake.on("skills.import", () => item("dropped"));
    const { wrapper } = await mountWith(SkillsHost, { fake });
    fake.emit([{ type: "import_skill_requested", path: "/tmp/dropped.zip" }]);
    await tick();
    await tick();
    expect(fake.callsTo("skills.import_preview")).toEqual([{ path: "/tmp/dropped.zip" }]);
    const dialog = document.body.querySelector('[data-testid="skill-preview"]');
    expect(dialog?.textContent).toContain("Dropped");
    expect(dialog?.textContent).toContain("1068 characters");
    (document.body.querySelector('[data-testid="skill-preview-import"]') as HTMLButtonElement).click();
    await tick();
    await tick();
    expect(fake.callsTo("skills.import")).toEqual([{ path: "/tmp/dropped.zip" }]);
    expect(document.body.querySelector('[data-testid="skill-preview-done"]')?.textContent).toContain("dropped");
    wrapper.unmount();
  });

  it("a conflict disables Import; another file dropped outside the composer is refused politely", async () => {
    const fake = market([]);
    fake.on("skills.import_preview", () => preview({ conflict: "A user Skill named 'dropped' already exists" }));
    const { wrapper } = await mountWith(SkillsHost, { fake });
    fake.emit([{ type: "import_skill_requested", path: "/tmp/dropped.zip" }]);
    await tick();
    await tick();
    expect((document.body.querySelector('[data-testid="skill-preview-import"]') as HTMLButtonElement).disabled).toBe(true);
    (document.body.querySelector('[data-testid="skill-preview-cancel"]') as HTMLButtonElement).click();
    await tick();
    const drop = new Event("drop", { bubbles: true, cancelable: true }) as DragEvent;
    const file = new File(["hello"], "notes.txt", { type: "text/plain" });
    Object.defineProperty(drop, "dataTransfer", { value: { types: ["Files"], files: [file], items: [] } });
    window.dispatchEvent(drop);
    await tick();
    expect(drop.defaultPrevented).toBe(true);
    expect(document.body.querySelector('[data-testid="drop-refused"]')?.textContent).toContain("Only Skill .zip files");
    expect(fake.callsTo("skills.import_preview")).toHaveLength(1);
    wrapper.unmount();
  });
});

describe("Skill proposals", () => {
  it("shows pending proposals, approves one and turns self-evolution on", async () => {
    const fake = market([]);
    let status: "pending" | "approved" = "pending";
    let enabled = false;
    fake.on("skills.proposals.list", () => ({
      enabled,
      proposals: [{ id: "p1", status, name: "notes-digest", content: "---\nname: notes-digest\n---\n", reason: "", created_at: "2026-12-01" }],
    }));
    fake.on("skills.proposals.approve", () => {
      status = "approved";
      return { id: "p1", status, name: "notes-digest", content: "", reason: "", created_at: "2026-12-01" };
    });
    fake.on("settings.update", (patch) => {
      enabled = Boolean(patch.skill_evolution);
      return settingsView({ skill_evolution: enabled });
    });
    const { wrapper } = await mountWith(SkillsView, { fake, path: "/skills" });
    await tick();
    const section = wrapper.get('[data-testid="skills-proposals"]');
    expect(section.text()).toContain("notes-digest");
    expect(section.text()).toContain("Waiting for your decision");
    await wrapper.get('[data-testid="skills-evolution-toggle"]').trigger("change");
    await tick();
    expect(fake.callsTo("settings.update")).toEqual([{ skill_evolution: true }]);
    await wrapper.get('[data-testid="proposal-approve"]').trigger("click");
    await tick();
    await tick();
    expect(fake.callsTo("skills.proposals.approve")).toEqual([{ id: "p1" }]);
    expect(wrapper.get('[data-testid="skills-proposals"]').text()).toContain("Approved");
    expect(wrapper.find('[data-testid="proposal-approve"]').exists()).toBe(false);
  });
});
