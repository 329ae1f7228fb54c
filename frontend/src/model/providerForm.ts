/** Provider form logic (pure): defaults per kind and the key-mask rule. */
import type { ProviderInput, ProviderView } from "@/api/generated";
import { DEFAULT_BASE_URLS } from "@/stores/providers";
import type { ProviderKind } from "@/stores/providers";

export const MASK = "********";

export interface ProviderDraft {
  id: string | null;
  name: string;
  kind: ProviderKind;
  baseUrl: string;
  apiKey: string;
}

export function draftFrom(view: ProviderView | null): ProviderDraft {
  if (!view) return { id: null, name: "", kind: "chat_completions", baseUrl: DEFAULT_BASE_URLS.chat_completions, apiKey: "" };
  return { id: view.id, name: view.name, kind: view.kind, baseUrl: view.base_url, apiKey: view.has_key ? MASK : "" };
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
