import { defineStore } from "pinia";
import { ref } from "vue";
import type { AppEvent, CatalogInstalled, CatalogList, CatalogPlan, CatalogServerView, CatalogText } from "@/api/generated";
import { useApiStore } from "./api";

/** The curated MCP catalog in MCP Market: list, plan (the exact commands), install with live progress. */
export const useMcpCatalogStore = defineStore("mcpCatalog", () => {
  const api = useApiStore();
  const servers = ref<CatalogServerView[]>([]);
  const nodeProblem = ref("");
  const loaded = ref(false);
  /** Every catalog entry's title and description seen so far, by id: an installed server's row
   * words them in the UI language even while a search hides its entry from the list. */
  const texts = ref<Record<string, { title: CatalogText; description: CatalogText }>>({});
  /** Lines of the running install per server: "$ command" and its output. */
  const progress = ref<Record<string, string[]>>({});

  async function load(search = ""): Promise<void> {
    const list: CatalogList = await api.invoke("mcp_catalog.list", { search });
    servers.value = list.servers;
    const seen = { ...texts.value };
    for (const s of list.servers) seen[s.id] = { title: s.title, description: s.description };
    texts.value = seen;
    nodeProblem.value = list.node_problem;
    loaded.value = true;
  }

  function listen(): () => void {
    const transport = api.transport;
    if (!transport) return () => undefined;
    return transport.onEvents((batch: AppEvent[]) => {
      for (const ev of batch) {
        if (ev.type !== "mcp_catalog_progress" || ev.kind === "done") continue;
        const line = ev.kind === "command" ? `$ ${ev.text}` : ev.text;
        const lines = [...(progress.value[ev.server] ?? []), line].slice(-200);
        progress.value = { ...progress.value, [ev.server]: lines };
      }
    });
  }

  async function plan(name: string, inputs: Record<string, string[]>): Promise<CatalogPlan> {
    return api.invoke("mcp_catalog.plan", { name, inputs });
  }

  async function install(name: string, inputs: Record<string, string[]>): Promise<CatalogInstalled> {
    progress.value = { ...progress.value, [name]: [] };
    const done = await api.invoke("mcp_catalog.install", { name, inputs });
    await load();
    return done;
  }

  async function uninstall(name: string): Promise<void> {
    await api.invoke("mcp_catalog.uninstall", { name });
    await load();
  }

  return { servers, nodeProblem, loaded, texts, progress, load, listen, plan, install, uninstall };
});
