import { defineStore } from "pinia";
import { computed, ref } from "vue";
import type {
  AgentSpecInput,
  AgentSpecOutput,
  AgentView,
  PackageExported,
  PackageInstalled,
  PackagePreview,
} from "@/api/generated";
import { useApiStore } from "./api";

export const DEFAULT_AGENT = "default";

/** Agents (issue 38): the list, the one a new chat starts with, and the agent picked for the
 * chat the home screen is about to create. */
export const useAgentsStore = defineStore("agents", () => {
  const api = useApiStore();
  const agents = ref<AgentView[]>([]);
  const lastUsed = ref<string>(DEFAULT_AGENT);
  // The agent of the chat "New chat" shows before it exists (the home screen's picker).
  const draft = ref<string | null>(null);
  let loading: Promise<void> | null = null;

  async function load(): Promise<void> {
    try {
      const res = await api.invoke("agents.list", {});
      agents.value = res.agents;
      lastUsed.value = res.last_used;
    } catch {
      agents.value = []; // a build without the agents capability: everything is the default agent
    }
  }

  /** Loaded once (then after each change); awaited by New chat so it knows the last used. */
  function ready(): Promise<void> {
    loading ??= load();
    return loading;
  }

  function byId(id: string | null | undefined): AgentView | null {
    return agents.value.find((a) => a.id === (id ?? DEFAULT_AGENT)) ?? null;
  }

  function specOf(id: string | null | undefined): AgentSpecOutput | null {
    return byId(id)?.spec ?? null;
  }

  const custom = computed(() => agents.value.filter((a) => !a.builtin));

  async function add(spec: AgentSpecInput): Promise<AgentView> {
    const made = await api.invoke("agents.add", { spec });
    await load();
    return made;
  }

  async function edit(agentId: string, spec: AgentSpecInput): Promise<AgentView> {
    const saved = await api.invoke("agents.edit", { agent_id: agentId, spec });
    await load();
    return saved;
  }

  async function duplicate(agentId: string): Promise<AgentView> {
    const made = await api.invoke("agents.duplicate", { agent_id: agentId });
    await load();
    return made;
  }

  async function remove(agentId: string): Promise<void> {
    await api.invoke("agents.remove", { agent_id: agentId });
    await load();
  }

  /** Change a chat's agent (only before its first message; the app refuses it after). */
  async function setChatAgent(chatId: string, agentId: string): Promise<void> {
    await api.invoke("agents.set_chat_agent", { chat_id: chatId, agent_id: agentId });
    lastUsed.value = agentId;
  }

  /** `.cashagent` packages (issue 38 item 3): the file as bytes, both ways. */
  async function exportPackage(agentId: string): Promise<PackageExported> {
    return api.invoke("agents.export", { agent_id: agentId });
  }

  async function previewPackage(dataBase64: string): Promise<PackagePreview> {
    return api.invoke("agents.import_preview", { data_base64: dataBase64 });
  }

  /** Install exactly what was previewed (its digest); secrets by "server/NAME". */
  async function importPackage(
    dataBase64: string,
    digest: string,
    secrets: Record<string, string>,
  ): Promise<PackageInstalled> {
    const done = await api.invoke("agents.import", { data_base64: dataBase64, digest, secrets });
    await load();
    return done;
  }

  return {
    agents,
    custom,
    lastUsed,
    draft,
    load,
    ready,
    byId,
    specOf,
    add,
    edit,
    duplicate,
    remove,
    setChatAgent,
    exportPackage,
    previewPackage,
    importPackage,
  };
});
