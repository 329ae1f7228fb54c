/**
 * A tiny typed i18n: `t(key, params)` with `{name}` placeholders. No message compiler
 * (the CSP forbids eval), no runtime dependency.
 */
import { computed } from "vue";
import { useSettingsStore } from "@/stores/settings";
import type { Language } from "@/stores/settings";
import { en } from "./en";
import type { MessageKey } from "./en";
import { zhCN } from "./zh-CN";

export type { MessageKey };
export type Params = Record<string, string | number>;

export const dictionaries: Record<Language, Record<MessageKey, string>> = { en, "zh-CN": zhCN };

export const LANGUAGES: { value: Language; label: string }[] = [
  { value: "en", label: "English" },
  { value: "zh-CN", label: "简体中文" },
];

export function translate(lang: Language, key: MessageKey, params?: Params): string {
  const text = dictionaries[lang][key] ?? en[key] ?? key;
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export function useI18n() {
  const settings = useSettingsStore();
  const locale = computed(() => settings.language);
  const t = (key: MessageKey, params?: Params): string => translate(locale.value, key, params);
  return { t, locale };
}
