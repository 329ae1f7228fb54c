/** Provider form logic (pure): defaults per kind, the key-mask rule and the limits (issue 34). */
import type { ModelSettingsEntryInput, ProviderInput, ProviderView } from "@/api/generated";
import { DEFAULT_BASE_URLS } from "@/stores/providers";
import type { ProviderKind } from "@/stores/providers";

export const MASK = "********";

/** "*" in a model row: the settings apply to every model of the provider. */
export const ALL_MODELS = "*";

/** One model row of the form; numbers as typed ("" = the server's default). */
export interface ModelRowDraft {
  model: string;
  temperature: string;
  maxTokens: string;
  contextLength: string;
}

export interface ProviderDraft {
  id: string | null;
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  apiKey: string;
  timeout: string; // seconds; "" = 60 s
  firstTokenTimeout: string; // seconds; "" = none
  parallelRequests: string; // model calls at once; "" = 1 for a local provider, no limit else; "0" = no limit
  leanTools: LeanChoice;
  defaultModel: string;
  models: ModelRowDraft[];
}

/** The lean request (core tools up front, the rest through tool_search): "" = the default (on
 * for a local provider, off for a remote one). */
export type LeanChoice = "" | "on" | "off";

function text(value: number | null | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}

export function emptyModelRow(model = ALL_MODELS): ModelRowDraft {
  return { model, temperature: "", maxTokens: "", contextLength: "" };
}

export function draftFrom(view: ProviderView | null): ProviderDraft {
  if (!view) {
    return {
      id: null, name: "", kind: "chat_completions", baseUrl: DEFAULT_BASE_URLS.chat_completions, apiKey: "",
      timeout: "", firstTokenTimeout: "", parallelRequests: "", leanTools: "", defaultModel: "", models: [],
    };
  }
  return {
    id: view.id,
    name: view.name,
    kind: view.kind,
    baseUrl: view.base_url,
    apiKey: view.has_key ? MASK : "",
    timeout: text(view.timeout_s),
    firstTokenTimeout: text(view.first_token_timeout_s),
    parallelRequests: text(view.parallel_requests),
    leanTools: view.lean_tools === null ? "" : view.lean_tools ? "on" : "off",
    defaultModel: view.default_model ?? "",
    models: (view.model_settings ?? []).map((m) => ({
      model: m.model,
      temperature: text(m.temperature),
      maxTokens: text(m.max_output_tokens),
      contextLength: text(m.context_length),
    })),
  };
}

/** A typed number, or null for an empty field (the server's default). A number input's v-model
 * may hand over a number rather than its text. */
export function numberOrNull(value: string | number): number | null {
  const trimmed = String(value).trim();
  if (!trimmed) return null;
  const parsed = Number(trimmed);
  return Number.isFinite(parsed) ? parsed : null;
}

/** Rows with a model and at least one value; an empty row says nothing and is not sent. */
export function modelSettings(rows: ModelRowDraft[]): ModelSettingsEntryInput[] {
  return rows
    .map((row) => ({
      model: row.model.trim() || ALL_MODELS,
      temperature: numberOrNull(row.temperature),
      max_output_tokens: numberOrNull(row.maxTokens),
      context_length: numberOrNull(row.contextLength),
    }))
    .filter((e) => e.temperature !== null || e.max_output_tokens !== null || e.context_length !== null);
}

/** Switching kind replaces the base URL only when it still is some kind's default (or empty). */
export function withKind(draft: ProviderDraft, kind: ProviderKind): ProviderDraft {
  const isDefault = !draft.baseUrl.trim() || Object.values(DEFAULT_BASE_URLS).includes(draft.baseUrl.trim());
  return { ...draft, kind, baseUrl: isDefault ? DEFAULT_BASE_URLS[kind] : draft.baseUrl };
}

/** The mask keeps the stored key, an emptied field removes it (`clear_key`: the API keeps the
 * key for a bare ""), anything else replaces it. */
export function toInput(draft: ProviderDraft): ProviderInput {
  const apiKey = draft.apiKey === MASK ? MASK : draft.apiKey.trim();
  return {
    id: draft.id,
    name: draft.name.trim(),
    kind: draft.kind,
    base_url: draft.baseUrl.trim(),
    api_key: apiKey,
    ...(draft.id !== null && apiKey === "" ? { clear_key: true } : {}),
    timeout_s: numberOrNull(draft.timeout),
    first_token_timeout_s: numberOrNull(draft.firstTokenTimeout),
    parallel_requests: numberOrNull(draft.parallelRequests),
    lean_tools: draft.leanTools === "" ? null : draft.leanTools === "on",
    default_model: draft.defaultModel.trim() || null,
    model_settings: modelSettings(draft.models),
  };
}

/** Scheme, host and port: where a key is sent (the path does not matter). */
export function keyOrigin(url: string): string | null {
  try {
    const parsed = new URL(url.trim());
    return `${parsed.protocol}//${parsed.host.toLowerCase()}`;
  } catch {
    return null;
  }
}

/**
 * A stored key is bound to the host it was entered for: keeping it (the mask) while the base URL
 * moves to another host would send it there, so the key must be entered again (the API refuses too).
 */
export function keyNeedsReentry(view: ProviderView | null, draft: ProviderDraft): boolean {
  if (!view || !view.has_key || draft.apiKey !== MASK) return false;
  return keyOrigin(view.base_url) !== keyOrigin(draft.baseUrl);
}
