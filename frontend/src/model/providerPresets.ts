/** The "Add a provider" presets (issue 41): the services people connect most, pre-filled so a
 * newcomer types at most a key. The default model is a suggestion the user can change; local
 * servers need no key and list their own models. */
import type { ProviderKind } from "@/stores/providers";
import { draftFrom } from "./providerForm";
import type { ProviderDraft } from "./providerForm";

export type PresetId = "openai" | "deepseek" | "openrouter" | "lmstudio" | "ollama" | "llamacpp" | "custom";

export interface ProviderPreset {
  id: PresetId;
  label: string; // a product name: the same in every UI language
  kind: ProviderKind;
  baseUrl: string;
  defaultModel: string;
  local: boolean; // a server on this machine: no key asked for
}

export const PRESETS: readonly ProviderPreset[] = [
  { id: "openai", label: "OpenAI", kind: "chat_completions", baseUrl: "https://api.openai.com/v1", defaultModel: "gpt-4o-mini", local: false },
  { id: "deepseek", label: "DeepSeek", kind: "chat_completions", baseUrl: "https://api.deepseek.com/v1", defaultModel: "deepseek-chat", local: false },
  { id: "openrouter", label: "OpenRouter", kind: "chat_completions", baseUrl: "https://openrouter.ai/api/v1", defaultModel: "openai/gpt-4o-mini", local: false },
  { id: "lmstudio", label: "LM Studio", kind: "chat_completions", baseUrl: "http://127.0.0.1:1234/v1", defaultModel: "", local: true },
  { id: "ollama", label: "Ollama", kind: "ollama", baseUrl: "http://127.0.0.1:11434", defaultModel: "", local: true },
  { id: "llamacpp", label: "llama.cpp", kind: "chat_completions", baseUrl: "http://127.0.0.1:8080/v1", defaultModel: "", local: true },
];

/** A new provider's form filled from a preset; "custom" is the empty form. */
export function draftFromPreset(id: PresetId): ProviderDraft {
  const empty = draftFrom(null);
  const preset = PRESETS.find((p) => p.id === id);
  if (!preset) return empty;
  return { ...empty, name: preset.label, kind: preset.kind, baseUrl: preset.baseUrl, defaultModel: preset.defaultModel };
}

export function presetOf(id: PresetId): ProviderPreset | null {
  return PRESETS.find((p) => p.id === id) ?? null;
}
