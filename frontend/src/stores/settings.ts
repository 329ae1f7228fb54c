import { defineStore } from "pinia";
import { computed, ref } from "vue";
import type { ModelRef, SettingsPatch, SettingsView } from "@/api/generated";
import { useApiStore } from "./api";

export type Theme = SettingsView["theme"];
export type Language = SettingsView["language"];
export type ApprovalMode = SettingsView["approval_mode"];

/** Best guess before the backend answers: the browser's language. */
export function systemLanguage(nav: { language?: string } = navigator): Language {
  return nav.language?.toLowerCase().startsWith("zh") ? "zh-CN" : "en";
}

export const useSettingsStore = defineStore("settings", () => {
  const api = useApiStore();
  const view = ref<SettingsView | null>(null);
  /** The model picked in the composer (the backend remembers it as last_model on send). */
  const chosenModel = ref<ModelRef | null>(null);

  const theme = computed<Theme>(() => view.value?.theme ?? "system");
  const language = computed<Language>(() => view.value?.language ?? systemLanguage());
  const lastModel = computed<ModelRef | null>(() => chosenModel.value ?? view.value?.last_model ?? null);

  async function load(): Promise<void> {
    view.value = await api.invoke("settings.get", {});
  }

  async function update(patch: SettingsPatch): Promise<void> {
    // Apply at once (theme and language must switch immediately), then take the backend's view;
    // if the backend refuses, go back to what it had.
    const before = view.value;
    if (before) view.value = { ...before, ...stripNulls(patch) };
    try {
      view.value = await api.invoke("settings.update", patch);
    } catch (err) {
      view.value = before;
      throw err;
    }
  }

  function chooseModel(model: ModelRef | null): void {
    chosenModel.value = model;
  }

  return { view, theme, language, lastModel, load, update, chooseModel };
});

function stripNulls(patch: SettingsPatch): Partial<SettingsView> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) if (value !== null && value !== undefined) out[key] = value;
  return out as Partial<SettingsView>;
}
