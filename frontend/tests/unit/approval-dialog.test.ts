import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalRequired } from "@/api/generated";
import ApprovalDialog from "@/components/chat/ApprovalDialog.vue";
import { mountWith, tick } from "./mount";

const APPROVAL: ApprovalRequired = {
  type: "approval_required", chat_id: "c1", turn_id: "t1", approval_id: "a1", call_id: "k1", tool: "exec",
  title: "Run a command", detail: "git push --force origin main", argv: ["git", "push", "--force", "origin", "main"], can_always: true,
  summary: null,
};

async function dialog(approval: Partial<ApprovalRequired> = {}) {
  const { wrapper } = await mountWith(ApprovalDialog, { props: { approval: { ...APPROVAL, ...approval }, more: 0 } });
  await tick();
  return wrapper;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("approval dialog", () => {
  it("shows exactly what will run", async () => {
    const w = await dialog();
    expect(w.get('[data-testid="approval-detail"]').text()).toBe("git push --force origin main");
    expect(w.get('[data-testid="approval-dialog"]').text()).toContain("Run a command");
    expect(w.findAll(".argv-list li").map((li) => li.text())).toEqual(["git", "push", "--force", "origin", "main"]);
  });

  it.each([
    ["approval-deny", "deny"],
    ["approval-once", "once"],
    ["approval-always", "always"],
  ])("%s answers %s", async (testid, decision) => {
    const w = await dialog();
    await w.get(`[data-testid="${testid}"]`).trigger("click");
    expect(w.emitted("answer")).toEqual([[decision]]);
  });

  it("offers Always allow only when can_always", async () => {
    const w = await dialog({ can_always: false });
    expect(w.find('[data-testid="approval-always"]').exists()).toBe(false);
  });

  it("Esc denies and Enter allows once; answers only once", async () => {
    const w = await dialog();
    await w.get('[data-testid="approval-dialog"]').trigger("keydown", { key: "Escape" });
    await w.get('[data-testid="approval-dialog"]').trigger("keydown", { key: "Enter" });
    expect(w.emitted("answer")).toEqual([["deny"]]);
    const w2 = await dialog();
    await w2.get('[data-testid="approval-dialog"]').trigger("keydown", { key: "Enter" });
    expect(w2.emitted("answer")).toEqual([["once"]]);
  });

  it("focuses Allow once and traps Tab inside the dialog", async () => {
    const w = await dialog();
    const once = w.get('[data-testid="approval-once"]').element as HTMLElement;
    const deny = w.get('[data-testid="approval-deny"]').element as HTMLElement;
    expect(document.activeElement).toBe(once);
    // Tab from the last control wraps to the first.
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Tab", bubbles: true }));
    expect(document.activeElement).toBe(deny);
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "Tab", shiftKey: true, bubbles: true }));
    expect(document.activeElement).toBe(once);
  });
});

describe("approval dialog: a program runs with the user's permissions", () => {
  it("says so when a program will run (argv), and not otherwise", async () => {
    const w = await dialog();
    expect(w.get('[data-testid="approval-permissions"]').text()).toContain("runs with your permissions");
    const w2 = await dialog({ argv: null, tool: "write_file", detail: "Write 3 bytes" });
    expect(w2.find('[data-testid="approval-permissions"]').exists()).toBe(false);
  });
});

describe("approval dialog: the permissions line in both languages", () => {
  it("has a Chinese text", async () => {
    const { translate } = await import("@/i18n");
    expect(translate("zh-CN", "approval.userPermissions")).toContain("以你的权限运行");
  });
});
