import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { KbView } from "@/api/generated";
import SkillsHost from "@/components/skills/SkillsHost.vue";
import KnowledgeView from "@/views/KnowledgeView.vue";
import { mountWith, tick } from "./mount";

const BASE: KbView = { name: "notes", roots: ["/home/me/notes"], files: 3, chunks: 9, skipped: 0, indexed_at: null, progress: null, pending: false, embedded: 0 };

function fake(): FakeTransport {
  return new FakeTransport()
    .on("knowledge.list", () => ({ bases: [BASE], embeddings_model: "", embeddings_error: "" }))
    .on("knowledge.add", () => ({ base: BASE, run: { name: "reports", indexed: 1, unchanged: 0, removed: 0, skipped: 0 } }))
    .on("knowledge.add_root", () => ({ base: BASE, run: { name: "notes", indexed: 1, unchanged: 0, removed: 0, skipped: 0 } }));
}

function dropOn(target: Element, name: string): DragEvent {
  const drop = new Event("drop", { bubbles: true, cancelable: true }) as DragEvent;
  const file = new File(["# Report"], name, { type: "text/markdown" });
  Object.defineProperty(drop, "dataTransfer", { value: { types: ["Files"], files: [file], items: [] } });
  target.dispatchEvent(drop);
  return drop;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("a file dropped on the Knowledge view (issue 41 item 6)", () => {
  it("is offered to a knowledge base with the path the window sent, and added", async () => {
    const transport = fake();
    const { wrapper } = await mountWith(KnowledgeView, { fake: transport });
    await tick();
    transport.emit([{ type: "knowledge_add_requested", path: "/home/me/reports/q3.md" }]);
    await tick();
    const panel = wrapper.get('[data-testid="kb-dropped"]');
    expect(panel.text()).toContain("/home/me/reports/q3.md");
    // Into the existing base by default; a new base named after it is the other choice.
    await panel.get('[data-testid="kb-dropped-add"]').trigger("submit");
    await tick();
    expect(transport.callsTo("knowledge.add_root")).toEqual([{ name: "notes", path: "/home/me/reports/q3.md" }]);
    transport.emit([{ type: "knowledge_add_requested", path: "/home/me/reports" }]);
    await tick();
    await wrapper.get('[data-testid="kb-dropped-into"]').setValue("");
    await wrapper.get('[data-testid="kb-dropped"]').trigger("submit");
    await tick();
    expect(transport.callsTo("knowledge.add")).toEqual([{ path: "/home/me/reports" }]);
    await tick();
    expect(wrapper.find('[data-testid="kb-dropped"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it("is never refused as not a Skill; in a browser the view says how to add it", async () => {
    const transport = fake();
    const host = await mountWith(SkillsHost, { fake: transport });
    const view = await mountWith(KnowledgeView, { fake: transport });
    await tick();
    const drop = dropOn(view.wrapper.get('[data-testid="kb-empty"], .settings-scroll').element, "report.md");
    await tick();
    expect(drop.defaultPrevented).toBe(true);
    expect(document.body.querySelector('[data-testid="drop-refused"]')).toBeNull();
    expect(view.wrapper.get('[data-testid="kb-dropped-browser"]').text()).toContain("its folder's path");
    // The same file dropped elsewhere is still refused politely.
    dropOn(document.body, "report.md");
    await tick();
    expect(document.body.querySelector('[data-testid="drop-refused"]')?.textContent).toContain("Only Skill .zip files");
    host.wrapper.unmount();
    view.wrapper.unmount();
  });
});
