import { defineStore } from "pinia";
import { ref } from "vue";
import type { CatalogInstalled, RegistryList, RegistryPlan, RegistryServerView, RegistrySettingsView } from "@/api/generated";
import { useApiStore } from "./api";

/** The MCP Registry in MCP Market: its base URL, search with paging, plan and install an entry.
 * Install progress arrives as mcp_catalog_progress events (the catalog store collects them). */
export const useMcpRegistryStore = defineStore("mcpRegistry", () => {
  const api = useApiStore();
  const settings = ref<RegistrySettingsView | null>(null);
  const list = ref<RegistryList | null>(null);
  const servers = ref<RegistryServerView[]>([]);
  const loading = ref(false);
  let query = "";

  async function loadSettings(): Promise<void> {
    settings.value = await api.invoke("mcp_catalog.registry.settings", {});
  }

  async function saveUrl(url: string): Promise<void> {
    settings.value = await api.invoke("mcp_catalog.registry.save_settings", { registry_url: url });
    await search(query, true);
  }

  async function search(text = "", refresh = false): Promise<void> {
    query = text;
    loading.value = true;
    try {
      const got: RegistryList = await api.invoke("mcp_catalog.registry.search", { search: text, cursor: "", refresh });
      if (query !== text) return; // a newer search is under way
      list.value = got;
      servers.value = got.servers;
    } finally {
      loading.value = false;
    }
  }

  async function more(): Promise<void> {
    const cursor = list.value?.next_cursor ?? "";
    if (!cursor) return;
    const got: RegistryList = await api.invoke("mcp_catalog.registry.search", { search: query, cursor, refresh: false });
    // The malformed entries of the pages shown so far stay listed (the notice is about the list).
    const skipped = [...(list.value?.skipped ?? []), ...got.skipped];
    list.value = { ...got, servers: [...servers.value, ...got.servers], skipped };
    servers.value = list.value.servers;
  }

  async function plan(name: string, option: number, inputs: Record<string, string[]>): Promise<RegistryPlan> {
    return api.invoke("mcp_catalog.registry.plan", { name, version: "", option, inputs });
  }

  /** Installs exactly what `shown` (the plan) showed: the server refuses anything else. The
   * loader-variable and plain-http confirmations are the user's own, separate ticks. */
  async function install(
    name: string,
    option: number,
    inputs: Record<string, string[]>,
    shown: RegistryPlan,
    allow: { loaderEnv: boolean; plainHttp: boolean },
  ): Promise<CatalogInstalled> {
    const done = await api.invoke("mcp_catalog.registry.install", {
      name,
      version: "",
      option,
      inputs,
      confirm: shown.confirm,
      allow_loader_env: allow.loaderEnv && shown.loader_env.length > 0,
      allow_plain_http_auth: allow.plainHttp && shown.plain_http_secrets.length > 0,
    });
    await search(query);
    return done;
  }

  return { settings, list, servers, loading, loadSettings, saveUrl, search, more, plan, install };
});
