import { afterEach, describe, expect, it } from "vitest";
import type { ImportReport } from "@/api/generated";
import { ApiError } from "@/api/transport";
import ImportSection from "@/components/settings/ImportSection.vue";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

function report(dryRun: boolean): ImportReport {
  return {
    source: "cdy_agent",
    path: "/p",
    dry_run: dryRun,
    items: [
      { kind: "chat", name: "What is uv?", status: dryRun ? "would_import" : "imported", reason: "" },
      { kind: "skill", name: "Bad_Name", status: "invalid", reason: "'name' may only use lowercase letters" },
    ],
    imported: 1,
    skipped: 1,
  };
}

describe("import section", () => {
  it("previews first, then imports on request and shows the report", async () => {
    const { wrapper, fake } = await mountWith(ImportSection);
    const calls: string[] = [];
    fake.on("import.preview", (req) => (calls.push(`preview ${req.path}`), report(true)));
    fake.on("import.run", (req) => (calls.push(`run ${req.path}`), report(false)));
    await wrapper.get('[data-testid="import-path"]').setValue(" /p ");
    await wrapper.get("form").trigger("submit");
    await tick();
    const shown = wrapper.get('[data-testid="import-report"]').text();
    expect(shown).toContain("1 to import, 1 skipped");
    expect(shown).toContain("Skipped: invalid");
    expect(calls).toEqual(["preview /p"]);
    await wrapper.get('[data-testid="import-run"]').trigger("click");
    await tick();
    expect(calls).toEqual(["preview /p", "run /p"]);
    expect(wrapper.get('[data-testid="import-report"]').text()).toContain("1 imported, 1 skipped");
    expect(wrapper.find('[data-testid="import-run"]').exists()).toBe(false);
  });

  it("shows the API's error for a folder it cannot import", async () => {
    const { wrapper, fake } = await mountWith(ImportSection);
    fake.on("import.preview", () => {
      throw new ApiError("import.preview", "invalid", "/x is not a folder");
    });
    await wrapper.get('[data-testid="import-path"]').setValue("/x");
    await wrapper.get("form").trigger("submit");
    await tick();
    expect(wrapper.get('[role="alert"]').text()).toContain("/x is not a folder");
    expect(wrapper.find('[data-testid="import-report"]').exists()).toBe(false);
  });
});
