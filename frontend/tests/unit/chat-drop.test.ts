// Files dropped on the chat area (issue 25 item 3): they attach unless they are a Skill, and the
// drop overlay clears after every drop and every cancelled drag.
import { afterEach, describe, expect, it, vi } from "vitest";
import SkillsHost from "@/components/skills/SkillsHost.vue";
import { attachableFiles, bundleFile, isSkillCandidate } from "@/model/drops";
import { mountWith, tick } from "./mount";

afterEach(() => {
  vi.useRealTimers();
  document.body.innerHTML = "";
});

function dragEvent(kind: string, files: File[], related: EventTarget | null = document.body): DragEvent {
  const ev = new Event(kind, { bubbles: true, cancelable: true }) as DragEvent;
  Object.defineProperty(ev, "dataTransfer", { value: { types: ["Files"], files, items: [] } });
  Object.defineProperty(ev, "relatedTarget", { value: related });
  return ev;
}

const overlay = () => document.body.querySelector('[data-testid="drop-overlay"]');

describe("what a drop means", () => {
  it("a .zip or a folder is a Skill; anything else attaches", () => {
    const txt = new File(["x"], "notes.txt");
    expect(attachableFiles({ files: [txt] })).toEqual([txt]);
    expect(isSkillCandidate({ files: [new File(["x"], "pdf-tools.ZIP")] })).toBe(true);
    expect(attachableFiles({ files: [txt], items: [{ webkitGetAsEntry: () => ({ isDirectory: true }) }] })).toEqual([]);
    expect(attachableFiles(null)).toEqual([]);
  });

  it("an MCP Bundle never attaches: it goes to the bundle preview", () => {
    const txt = new File(["x"], "notes.txt");
    const kit = new File(["PK"], "Tool Kit.MCPB");
    expect(bundleFile({ files: [txt, kit] })).toBe(kit);
    expect(attachableFiles({ files: [txt, kit] })).toEqual([]);
    expect(bundleFile({ files: [txt] })).toBeNull();
    expect(isSkillCandidate({ files: [kit] })).toBe(false);
  });
});

describe("the drop overlay", () => {
  it("says files attach over the chat area, and clears after a drop a child stopped", async () => {
    const { wrapper } = await mountWith(SkillsHost);
    const chat = document.createElement("section");
    chat.dataset.dropzone = "chat";
    const box = document.createElement("form");
    chat.append(box);
    document.body.append(chat);
    // The composer (or the chat area) handles the drop and stops it, as it does for attachments.
    box.addEventListener("drop", (ev) => (ev.preventDefault(), ev.stopPropagation()));
    const file = new File(["hello"], "notes.txt", { type: "text/plain" });
    box.dispatchEvent(dragEvent("dragenter", [file]));
    await tick();
    expect(overlay()?.getAttribute("data-kind")).toBe("chat");
    expect(overlay()?.textContent).toContain("attach them to your message");
    box.dispatchEvent(dragEvent("drop", [file]));
    await tick();
    expect(overlay()).toBeNull();
    expect(document.body.querySelector('[data-testid="drop-refused"]')).toBeNull();
    wrapper.unmount();
  });

  it("clears when the drag leaves the window or is cancelled (no more dragover)", async () => {
    vi.useFakeTimers();
    const { wrapper } = await mountWith(SkillsHost);
    const file = new File(["x"], "a.zip");
    document.body.dispatchEvent(dragEvent("dragenter", [file]));
    await vi.advanceTimersByTimeAsync(0);
    expect(overlay()?.getAttribute("data-kind")).toBe("skills");
    document.body.dispatchEvent(dragEvent("dragleave", [file], null));
    await vi.advanceTimersByTimeAsync(0);
    expect(overlay()).toBeNull();
    // Entering one element and leaving another keeps it; a cancelled drag (Esc) stops dragover.
    document.body.dispatchEvent(dragEvent("dragenter", [file]));
    document.body.dispatchEvent(dragEvent("dragleave", [file], document.body));
    await vi.advanceTimersByTimeAsync(100);
    expect(overlay()).not.toBeNull();
    document.body.dispatchEvent(dragEvent("dragover", [file]));
    await vi.advanceTimersByTimeAsync(300);
    expect(overlay()).not.toBeNull();
    await vi.advanceTimersByTimeAsync(500);
    expect(overlay()).toBeNull();
    wrapper.unmount();
  });
});
