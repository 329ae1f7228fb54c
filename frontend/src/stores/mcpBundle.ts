import { defineStore } from "pinia";
import { ref } from "vue";
import type { AppEvent, BundlePreview, BundleSource, CatalogInstalled } from "@/api/generated";
import { errorMessage, useApiStore } from "./api";
import { fileToBase64 } from "./skills";

/** Where the bundle being previewed comes from: a path (desktop, a double click, a window drop)
 * or a file the browser read (its bytes are sent again on install; nothing is kept server-side). */
type Source = { path: string } | { data_base64: string; filename: string };

/** How long typing pauses before the preview is asked again. */
export const REFRESH_DELAY_MS = 300;

/**
 * The MCP Bundle (.mcpb) preview: opened from Market's "Install bundle…", a drop on the window
 * or `bundle_open_requested` (desktop drop, `cashcode desktop FILE.mcpb`); installing sends the
 * user_config values typed into its form. Nothing is installed before `install`.
 */
export const useMcpBundleStore = defineStore("mcpBundle", () => {
  const api = useApiStore();
  const label = ref(""); // the file's name, shown while its preview loads
  const preview = ref<BundlePreview | null>(null);
  const error = ref("");
  const busy = ref(false);
  const installing = ref(false);
  const installed = ref<CatalogInstalled | null>(null);
  const progress = ref<string[]>([]);
  const open = ref(false);
  let source: Source | null = null;
  let asked = 0; // the latest preview request: an older answer arriving late is dropped
  let pending: ReturnType<typeof setTimeout> | null = null;

  /** `quiet`: a refresh while the form is filled in. It never disables Install (a click on
   * Install blurs the field, whose change event refreshes: the click must still count). */
  async function load(inputs: Record<string, string[]> = {}, quiet = false): Promise<void> {
    if (!source) return;
    if (!quiet) busy.value = true;
    error.value = "";
    const mine = ++asked;
    try {
      const got = await api.invoke("mcp_catalog.bundle_preview", { ...source, inputs } as BundleSource);
      if (mine === asked) preview.value = got;
    } catch (err) {
      if (mine !== asked) return;
      preview.value = null;
      error.value = errorMessage(err);
    } finally {
      if (mine === asked) busy.value = false;
    }
  }

  function reset(name: string): void {
    label.value = name;
    preview.value = null;
    installed.value = null;
    progress.value = [];
    error.value = "";
    open.value = true;
  }

  async function openPath(path: string): Promise<void> {
    reset(path.split(/[\\/]/).pop() ?? path);
    source = { path };
    await load();
  }

  async function openFile(file: File): Promise<void> {
    reset(file.name);
    source = { data_base64: await fileToBase64(file), filename: file.name };
    await load();
  }

  function cancelPending(): void {
    if (pending !== null) clearTimeout(pending);
    pending = null;
  }

  /** The command line and checks again with the values typed so far, so "It will run exactly"
   * and the warnings follow every edit (an upload's bytes are sent again: local, and debounced). */
  async function refresh(inputs: Record<string, string[]>): Promise<void> {
    cancelPending();
    if (source && !installing.value) await load(inputs, true);
  }

  /** `refresh` once typing pauses for `REFRESH_DELAY_MS` (one request per pause, not per key). */
  function refreshSoon(inputs: Record<string, string[]>): void {
    cancelPending();
    pending = setTimeout(() => {
      pending = null;
      void refresh(inputs);
    }, REFRESH_DELAY_MS);
  }

  /** `allowLoaderEnv`: the user's own tick for the preview's loader variables (NODE_OPTIONS, …). */
  async function install(inputs: Record<string, string[]>, allowLoaderEnv = false): Promise<boolean> {
    if (!source) return false;
    cancelPending();
    installing.value = true;
    error.value = "";
    progress.value = [];
    try {
      installed.value = await api.invoke("mcp_catalog.bundle_install", { ...source, inputs, allow_loader_env: allowLoaderEnv } as BundleSource);
      return true;
    } catch (err) {
      error.value = errorMessage(err);
      return false;
    } finally {
      installing.value = false;
    }
  }

  function close(): void {
    cancelPending();
    open.value = false;
    preview.value = null;
    source = null;
  }

  function applyBatch(batch: AppEvent[]): void {
    for (const ev of batch) {
      if (ev.type === "bundle_open_requested") void openPath(ev.path);
      else if (ev.type === "mcp_catalog_progress" && installing.value && ev.server === preview.value?.id) {
        if (ev.kind === "command") progress.value = [...progress.value, `$ ${ev.text}`].slice(-200);
        else if (ev.kind === "output") progress.value = [...progress.value, ev.text].slice(-200);
      }
    }
  }

  return {
    label, preview, error, busy, installing, installed, progress, open,
    openPath, openFile, refresh, refreshSoon, install, close, applyBatch,
  };
});
