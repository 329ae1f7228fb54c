import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import WorkspaceSection from "@/components/settings/WorkspaceSection.vue";
import { useSettingsStore } from "@/stores/settings";
import { settingsView } from "./helpers";
import { mountWith, tick } from "./mount";

afterEach(() => {
  document.body.innerHTML = "";
});

describe("sandbox paths in Settings (issue 36)", () => {
  it("shows the saved paths one per line and saves the edited lists", async () => {
    const fake = new FakeTransport().on("settings.update", (patch) => ({
      ...settingsView(),
      sandbox_hidden: patch.sandbox_hidden ?? [],
      sandbox_readable: patch.sandbox_readable ?? [],
    }));
    const { wrapper } = await mountWith(WorkspaceSection, { fake });
    useSettingsStore().view = settingsView({ sandbox_hidden: ["/srv/private"], sandbox_readable: [] });
    await tick();
    const hidden = wrapper.get('[data-testid="sandbox-hidden"]');
    expect((hidden.element as HTMLTextAreaElement).value).toBe("/srv/private");
    await hidden.setValue("/srv/private\n  /home/me/.secrets  \n\n");
    await wrapper.get('[data-testid="sandbox-readable"]').setValue("/home/me/.local/toolchain");
    await wrapper.get('[data-testid="sandbox-save"]').trigger("click");
    await tick();
    expect(fake.callsTo("settings.update").at(-1)).toEqual({
      sandbox_hidden: ["/srv/private", "/home/me/.secrets"],
      sandbox_readable: ["/home/me/.local/toolchain"],
    });
    expect(wrapper.text()).toContain("Sandbox paths");
  });
});
