import { defineStore } from "pinia";
import { ref } from "vue";
import type { AppInfo } from "@/api/generated";
import type { Transport } from "@/api/transport";
import { errorMessage, useApiStore } from "./api";
import { useChatsStore } from "./chats";
import { useDesktopStore } from "./desktop";
import { useInboxStore } from "./inbox";
import { useProvidersStore } from "./providers";
import { useSettingsStore } from "./settings";

export type AppStatus = "connecting" | "ready" | "error";

/** Start-up: connect, subscribe to events, then take the snapshots. */
export const useAppStore = defineStore("app", () => {
  const api = useApiStore();
  const info = ref<AppInfo | null>(null);
  const status = ref<AppStatus>("connecting");
  const error = ref("");
  const firstRun = ref(false);
  /** The start-up integrity check found damage (its first finding), shown as a notice. */
  const databaseProblem = ref<string | null>(null);
  let unsubscribe: (() => void) | null = null;

  async function start(transport: Transport): Promise<void> {
    api.use(transport);
    const chats = useChatsStore();
    const desktop = useDesktopStore();
    const inbox = useInboxStore();
    // Subscribe before the snapshots so no event falls between them.
    unsubscribe?.();
    const offEvents = transport.onEvents((batch) => {
      chats.applyBatch(batch);
      desktop.applyBatch(batch);
      inbox.applyBatch(batch);
      for (const ev of batch) {
        if (ev.type === "database_problem") databaseProblem.value = ev.details[0] ?? ev.message;
        else if (ev.type === "database_status") databaseStatus(ev.busy);
      }
    });
    const offReconnect = transport.onReconnect?.(() => void resync());
    const offConnection = transport.onConnection?.((up) => (api.connectionLost = !up));
    unsubscribe = () => {
      offEvents();
      offReconnect?.();
      offConnection?.();
    };
    await connect();
  }

  async function connect(): Promise<void> {
    status.value = "connecting";
    error.value = "";
    try {
      const settings = useSettingsStore();
      const providers = useProvidersStore();
      const chats = useChatsStore();
      const [appInfo] = await Promise.all([
        api.invoke("app.info", {}),
        settings.load(),
        chats.loadList(),
        providers.load(),
      ]);
      info.value = appInfo;
      firstRun.value = appInfo.first_run;
      if (appInfo.database_busy) api.databaseBusy = true; // cleared by the backend's event
      status.value = "ready";
      void providers.loadModels().catch(() => undefined);
      // Off the first paint's path: the sidebar's Inbox badge fills in a moment later.
      void useInboxStore().load().catch(() => undefined);
    } catch (err) {
      error.value = errorMessage(err);
      status.value = "error";
    }
  }

  /** The database is busy (another program holds it) or works again: then re-read what a
   * busy read or write may have left stale, so the screen is whole again without a reload. */
  function databaseStatus(busy: boolean): void {
    const was = api.databaseBusy;
    api.databaseBusy = busy;
    if (was && !busy && status.value === "ready") void resync();
  }

  /** After an event-channel outage: re-read what events would have told us. */
  async function resync(): Promise<void> {
    const chats = useChatsStore();
    await chats.loadList().catch(() => undefined);
    void useInboxStore().load().catch(() => undefined);
    if (chats.currentId) await chats.loadHistory(chats.currentId);
  }

  function fail(message: string): void {
    error.value = message;
    status.value = "error";
  }

  function finishOnboarding(): void {
    firstRun.value = false;
  }

  return { info, status, error, firstRun, databaseProblem, start, connect, resync, fail, finishOnboarding };
});
