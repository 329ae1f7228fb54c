import { defineStore } from "pinia";
import { computed, ref } from "vue";
import type { ConnectionTest, ErrorInfo, ModelEntry, ProviderInput, ProviderView } from "@/api/generated";
import { useApiStore } from "./api";
import { useSettingsStore } from "./settings";

export type ProviderKind = ProviderView["kind"];

export const DEFAULT_BASE_URLS: Record<ProviderKind, string> = {
  chat_completions: "https://api.openai.com/v1",
  responses: "https://api.openai.com/v1",
  ollama: "http://127.0.0.1:11434",
};

export interface ModelGroup {
  providerId: string;
  providerName: string;
  models: ModelEntry[];
}

/** Group models by provider, keeping provider order and sorting model names. */
export function groupModels(models: readonly ModelEntry[]): ModelGroup[] {
  const groups = new Map<string, ModelGroup>();
  for (const m of models) {
    let g = groups.get(m.provider_id);
    if (!g) groups.set(m.provider_id, (g = { providerId: m.provider_id, providerName: m.provider_name, models: [] }));
    g.models.push(m);
  }
  for (const g of groups.values()) g.models.sort((a, b) => a.model.localeCompare(b.model));
  return [...groups.values()];
}

export const useProvidersStore = defineStore("providers", () => {
  const api = useApiStore();
  const providers = ref<ProviderView[]>([]);
  const models = ref<ModelEntry[]>([]);
  const modelErrors = ref<ErrorInfo[]>([]);
  const modelsLoading = ref(false);
  const tests = ref<Record<string, ConnectionTest>>({});
  const perProvider = ref<Record<string, ModelEntry[]>>({});

  const groups = computed(() => groupModels(models.value));

  async function load(): Promise<void> {
    providers.value = (await api.invoke("providers.list", {})).providers;
  }

  async function loadModels(): Promise<void> {
    modelsLoading.value = true;
    try {
      const list = await api.invoke("models.list", {});
      models.value = list.models;
      modelErrors.value = list.errors;
    } finally {
      modelsLoading.value = false;
    }
  }

  async function discover(providerId: string): Promise<ModelEntry[]> {
    const list = await api.invoke("models.list", { provider_id: providerId });
    perProvider.value[providerId] = list.models;
    if (list.errors.length > 0 && list.models.length === 0) throw new Error(list.errors[0].message);
    return list.models;
  }

  async function save(input: ProviderInput): Promise<ProviderView> {
    const saved = await api.invoke("providers.save", input);
    const at = providers.value.findIndex((p) => p.id === saved.id);
    if (at >= 0) providers.value.splice(at, 1, saved);
    else providers.value.push(saved);
    void loadModels().catch(() => undefined);
    // Saving the first provider chooses one of its models on the backend (last_model).
    const settings = useSettingsStore();
    if (!settings.lastModel) await settings.load().catch(() => undefined);
    return saved;
  }

  async function remove(providerId: string): Promise<void> {
    await api.invoke("providers.delete", { provider_id: providerId });
    providers.value = providers.value.filter((p) => p.id !== providerId);
    models.value = models.value.filter((m) => m.provider_id !== providerId);
    delete tests.value[providerId];
  }

  async function test(providerId: string): Promise<ConnectionTest> {
    // The old result goes first: while the new test runs, only its progress shows.
    delete tests.value[providerId];
    let result: ConnectionTest;
    try {
      result = await api.invoke("providers.test", { provider_id: providerId });
    } catch (err) {
      result = { ok: false, message: err instanceof Error ? err.message : String(err), model_count: 0, code: null, timeout_s: null, params: {} };
    }
    tests.value[providerId] = result;
    return result;
  }

  return { providers, models, modelErrors, modelsLoading, tests, perProvider, groups, load, loadModels, discover, save, remove, test };
});
