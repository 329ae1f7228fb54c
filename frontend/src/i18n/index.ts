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

/** The key's singular form (`<key>_one`) when `params.count` is 1 and the key has one. */
function pluralKey(key: MessageKey, params?: Params): MessageKey {
  if (params?.count !== 1) return key;
  const one = `${key}_one`;
  return one in en ? (one as MessageKey) : key;
}

export function translate(lang: Language, key: MessageKey, params?: Params): string {
  const form = pluralKey(key, params);
  const text = dictionaries[lang][form] ?? en[form] ?? key;
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export function useI18n() {
  const settings = useSettingsStore();
  const locale = computed(() => settings.language);
  const t = (key: MessageKey, params?: Params): string => translate(locale.value, key, params);
  return { t, locale };
}
