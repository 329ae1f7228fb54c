import { defineStore } from "pinia";
import { ref } from "vue";
import type {
  AppEvent, McpElicitation, McpImportPreview, McpImportResult, McpPromptList, McpPromptResult, McpResourceContents,
  McpAppsProbe, McpResourceList, McpServerCreate, McpServerView, McpToolList,
} from "@/api/generated";
import { errorMessage, useApiStore } from "./api";

type Policy = "always" | "ask" | "never";

/** MCP Market: the merged catalog with live status (mcp_server_status events). */
export const useMcpStore = defineStore("mcp", () => {
  const api = useApiStore();
  const servers = ref<McpServerView[]>([]);
  const busy = ref<Record<string, boolean>>({});
  const errors = ref<Record<string, string>>({});
  const loaded = ref(false);
  const elicitations = ref<McpElicitation[]>([]);

  async function load(): Promise<void> {
    servers.value = (await api.invoke("mcp.servers.list", {})).servers;
    loaded.value = true;
  }

  function put(view: McpServerView): void {
    const i = servers.value.findIndex((s) => s.name === view.name);
    if (i >= 0) servers.value.splice(i, 1, view);
    else servers.value.push(view);
  }

  /** Keep status live while the view is open; returns the unsubscribe function. */
  function listen(): () => void {
    const transport = api.transport;
    if (!transport) return () => undefined;
    return transport.onEvents((batch: AppEvent[]) => apply(batch));
  }

  function apply(batch: AppEvent[]): void {
    for (const ev of batch) {
      if (ev.type === "mcp_elicitation") {
        elicitations.value = ev.closed
          ? elicitations.value.filter((e) => e.id !== ev.id)
          : [...elicitations.value.filter((e) => e.id !== ev.id), ev];
        continue;
      }
      if (ev.type !== "mcp_server_status") continue;
      const s = servers.value.find((x) => x.name === ev.name);
      if (s) put({ ...s, status: ev.status, error: ev.error, error_key: ev.error_key, error_params: ev.error_params, tool_count: ev.status === "connected" ? ev.tool_count : s.tool_count });
    }
  }

  async function act(name: string, run: () => Promise<McpServerView | void>): Promise<boolean> {
    busy.value = { ...busy.value, [name]: true };
    errors.value = { ...errors.value, [name]: "" };
    try {
      const view = await run();
      if (view) put(view);
      return true;
    } catch (err) {
      errors.value = { ...errors.value, [name]: errorMessage(err) };
      return false;
    } finally {
      busy.value = { ...busy.value, [name]: false };
    }
  }

  const connect = (name: string) => act(name, () => api.invoke("mcp.servers.connect", { name }));
  const disconnect = (name: string) => act(name, () => api.invoke("mcp.servers.disconnect", { name }));
  const confirm = (name: string) => act(name, () => api.invoke("mcp.servers.confirm", { name }));
  const signOut = (name: string) => act(name, () => api.invoke("mcp.servers.sign_out", { name }));

  async function save(payload: McpServerCreate, creating: boolean): Promise<McpServerView> {
    const view = creating ? await api.invoke("mcp.servers.create", payload) : await api.invoke("mcp.servers.update", payload);
    put(view);
    return view;
  }

  async function remove(name: string): Promise<void> {
    await api.invoke("mcp.servers.delete", { name });
    servers.value = servers.value.filter((s) => s.name !== name);
  }

  const tools = (name: string): Promise<McpToolList> => api.invoke("mcp.servers.tools", { name });
  const setPolicy = (server: string, tool: string, policy: Policy) => api.invoke("mcp.tools.set_policy", { server, tool, policy });
  const resources = (name: string): Promise<McpResourceList> => api.invoke("mcp.resources.list", { name });
  const readResource = (name: string, uri: string): Promise<McpResourceContents> => api.invoke("mcp.resources.read", { name, uri });
  const prompts = (name: string): Promise<McpPromptList> => api.invoke("mcp.prompts.list", { name });
  const getPrompt = (name: string, prompt: string, args: Record<string, string>): Promise<McpPromptResult> =>
    api.invoke("mcp.prompts.get", { name, prompt, arguments: args });
  // The confirm step's Apps: the server started once in the sandbox (app/mcp/app_probe.py).
  const appsPreview = (name: string): Promise<McpAppsProbe> => api.invoke("mcp.servers.apps_preview", { name });
  const importPreview = (text: string): Promise<McpImportPreview> => api.invoke("mcp.servers.import_preview", { text });

  async function answer(id: string, action: "accept" | "decline" | "cancel", content: Record<string, unknown> | null): Promise<void> {
    await api.invoke("mcp.elicitation.answer", { id, action, content });
    elicitations.value = elicitations.value.filter((e) => e.id !== id);
  }

  async function importSave(text: string, names: string[]): Promise<McpImportResult> {
    const result = await api.invoke("mcp.servers.import", { text, names });
    await load();
    return result;
  }

  return {
    servers, busy, errors, loaded, elicitations, answer, load, listen, apply, connect, disconnect, confirm, signOut, save, remove,
    tools, setPolicy, resources, readResource, prompts, getPrompt, importPreview, importSave, appsPreview,
  };
});
