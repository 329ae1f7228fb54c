import type { ErrorInfo, ModelRef } from "@/api/generated";

/** The query of the Settings page that an error's "Open settings" goes to. */
export interface SettingsQuery {
  section: "providers";
  /** This provider's row opens with its models listed (where "Can see images" is set). */
  provider?: string;
}

/**
 * Where "Open settings" leads for a chat error: the providers section; for "this model cannot
 * see images" (`attach.no_vision`), straight to the provider of the model it was sent to, with
 * its models expanded, since that is where the fix is (issue 41).
 */
export function settingsQueryFor(error: ErrorInfo, model: ModelRef | null): SettingsQuery {
  if (error.key === "attach.no_vision" && model) return { section: "providers", provider: model.provider_id };
  return { section: "providers" };
}

/** The provider a Settings query asks to open, if any. */
export function providerToOpen(query: Record<string, unknown>): string | null {
  return typeof query.provider === "string" && query.provider ? query.provider : null;
}
