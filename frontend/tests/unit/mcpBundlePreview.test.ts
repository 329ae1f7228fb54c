import type { DOMWrapper } from "@vue/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { FakeTransport } from "@/api/fake";
import type { BundlePreview, BundleSource } from "@/api/generated";
import McpBundlePreview from "@/components/mcp/McpBundlePreview.vue";
import { REFRESH_DELAY_MS, useMcpBundleStore } from "@/stores/mcpBundle";
import { useSettingsStore } from "@/stores/settings";
import { mountWith, tick } from "./mount";

/** What the server answers: the launch line from the `root` option's value, and the check's
 * finding for a folder that does not exist, with its catalog key (as app/mcp_catalog does). */
function previewFor(source: BundleSource): BundlePreview {
  const root = source.inputs?.root?.[0] ?? "/home/me/Documents";
  const missing = root.startsWith("/nope");
  return {
    id: "files", name: "files", display_name: "Files", version: "1.0.0", description: "Reads files.", long_description: "",
    author: { name: "Ann", email: "", url: "" }, manifest_version: "0.3", server_type: "node", tools: [], tools_generated: false,
    prompts: [], argv: ["node", "/srv/files/server.js", root], env: {}, loader_env: [], commands: [], folder: "/srv/files",
    options: [{ key: "root", type: "directory", title: "Root", description: "", required: true, sensitive: false, multiple: false, default: ["/home/me/Documents"], min: null, max: null }],
    size: 10, sha256: "abc", problem: "", conflict: "",
    input_problem: missing ? `the folder '${root}' of 'root' does not exist` : "",
    input_problem_key: missing ? "bundle.input.no_folder" : "",
    input_problem_params: missing ? { folder: root, option: "root" } : {},
    missing_input: "",
    apps: missing
      ? { state: "unknown", reason: "the required settings are not filled in yet", tool_count: 0, apps: [] }
      : {
          state: "listed", reason: "", tool_count: 2,
          apps: [{
            tool: "show_map", uri: "ui://files/map.html", visibility: ["model", "app"], connect_domains: ["https://tiles.example.com"],
            resource_domains: [], frame_domains: [], base_uri_domains: [], permissions: ["camera"], dropped: [], page_read: true,
          }],
        },
  };
}

/** Typing: `input` events only (a `change` comes when the field loses focus). */
async function type(field: DOMWrapper<Element>, text: string): Promise<void> {
  (field.element as HTMLInputElement).value = text;
  await field.trigger("input");
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterEach(() => {
  document.body.innerHTML = "";
});

async function openUpload(language: "en" | "zh-CN") {
  const fake = new FakeTransport().on("mcp_catalog.bundle_preview", previewFor);
  const mounted = await mountWith(McpBundlePreview, { fake });
  const settings = useSettingsStore();
  settings.view = { ...(settings.view ?? {}), language } as typeof settings.view;
  // The browser's "Install bundle…": an upload, not a path.
  await useMcpBundleStore().openFile(new File(["PK"], "files.mcpb"));
  for (let i = 0; i < 4; i++) await tick();
  return mounted;
}

describe("the bundle preview follows the edited settings (issue 41)", () => {
  it("'It will run exactly' and the missing-folder warning follow typing, debounced", async () => {
    const { fake, wrapper } = await openUpload("en");
    const argv = () => wrapper.find('[data-testid="bundle-preview-argv"]').text();
    expect(argv()).toBe("node /srv/files/server.js /home/me/Documents");
    const field = wrapper.find('[data-testid="bundle-input-root"]');
    for (const typed of ["/n", "/no", "/nope/x"]) await type(field, typed);
    await wait(REFRESH_DELAY_MS + 100);
    await tick();
    expect(argv()).toBe("node /srv/files/server.js /nope/x");
    expect(wrapper.find('[data-testid="bundle-preview-input-problem"]').text()).toBe("the folder '/nope/x' of 'root' does not exist");
    const asked = fake.callsTo("mcp_catalog.bundle_preview") as BundleSource[];
    expect(asked).toHaveLength(2); // the opening, then one per pause in typing
    expect(asked[1]).toMatchObject({ filename: "files.mcpb", inputs: { root: ["/nope/x"] } });

    await type(field, "/home/me/src");
    await wait(REFRESH_DELAY_MS + 100);
    await tick();
    expect(argv()).toBe("node /srv/files/server.js /home/me/src");
    expect(wrapper.find('[data-testid="bundle-preview-input-problem"]').exists()).toBe(false);
    wrapper.unmount();
  });

  it("words the missing-folder warning in Chinese in the Chinese UI", async () => {
    const { wrapper } = await openUpload("zh-CN");
    await type(wrapper.find('[data-testid="bundle-input-root"]'), "/nope/y");
    await wait(REFRESH_DELAY_MS + 100);
    await tick();
    expect(wrapper.find('[data-testid="bundle-preview-input-problem"]').text()).toBe("“root”的文件夹“/nope/y”不存在。");
    wrapper.unmount();
  });
});

describe("the bundle preview lists the bundle's Apps (issue 37 item 3)", () => {
  it("shows each App tool with its declared domains and permissions, in both languages", async () => {
    for (const [language, words] of [["en", "may reach: https://tiles.example.com · asks for: camera"], ["zh-CN", "可访问：https://tiles.example.com · 请求：camera"]] as const) {
      const { wrapper } = await openUpload(language);
      const apps = wrapper.find('[data-testid="mcp-apps-preview"]');
      expect(apps.attributes("data-state")).toBe("listed");
      const item = apps.find('[data-testid="mcp-apps-preview-item"]');
      expect(item.attributes("data-tool")).toBe("show_map");
      expect(item.text()).toContain(words);
      wrapper.unmount();
    }
  });

  it("says why the Apps are not known yet when the settings are not filled in", async () => {
    const { wrapper } = await openUpload("en");
    await type(wrapper.find('[data-testid="bundle-input-root"]'), "/nope/z");
    await wait(REFRESH_DELAY_MS + 100);
    await tick();
    const note = wrapper.find('[data-testid="mcp-apps-preview-note"]').text();
    expect(note).toBe("not known until the first connect (the required settings are not filled in yet).");
    wrapper.unmount();
  });
});
