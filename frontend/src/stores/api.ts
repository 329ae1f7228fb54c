import { defineStore, getActivePinia } from "pinia";
import { ref, shallowRef } from "vue";
import type { RouteName } from "@/api/generated";
import type { Request, Response, Transport } from "@/api/transport";
import { ApiError } from "@/api/transport";
import { errorText } from "@/i18n/errors";
import { useSettingsStore, type Language } from "./settings";

/** Holds the transport every other store calls through (set once at start-up, or by tests). */
export const useApiStore = defineStore("api", () => {
  const transport = shallowRef<Transport | null>(null);
  /**
   * Another program holds the database: a route answered `database_busy`, or the backend said
   * so (`database_status`). Cleared only by the backend's `database_status {busy: false}`, sent
   * once its probe finds the database free again (app/store/lane.py).
   */
  const databaseBusy = ref(false);
  /** `cashcode serve` is gone (the transport says so; the desktop bridge never is). */
  const connectionLost = ref(false);

  function use(t: Transport): void {
    transport.value = t;
  }

  function invoke<R extends RouteName>(route: R, payload: Request<R>): Promise<Response<R>> {
    const t = transport.value;
    if (!t) return Promise.reject(new ApiError(route, "unavailable", "Not connected to the backend.", {}, { key: "client.not_connected" }));
    return t.invoke(route, payload).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === "database_busy") databaseBusy.value = true;
      throw err;
    });
  }

  return { transport, databaseBusy, connectionLost, use, invoke };
});

/**
 * Readable text for any thrown value, in the UI language: a backend error is worded from its
 * catalog key (i18n/errors.ts), with the backend's English as the fallback. Without `lang` the
 * settings store's language is used (English when no store is active, as in plain unit tests).
 */
export function errorMessage(err: unknown, lang?: Language): string {
  if (err instanceof ApiError) {
    const language = lang ?? (getActivePinia() ? useSettingsStore().language : "en");
    return errorText(language, { code: err.code, message: err.message, params: err.params, key: err.key });
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

export function errorCode(err: unknown): string {
  return err instanceof ApiError ? err.code : "internal";
}
