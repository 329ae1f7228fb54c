/**
 * Knowledge-base citation links (model/citations.ts): the backend resolver, installed once for
 * the page, and what a click does. In the desktop window the file opens in the system's
 * default application (`desktop.open_path`, which opens only files of a knowledge base); in the
 * browser, and if the system cannot open it, the viewer panel shows the cited lines.
 */
import { effectScope, onBeforeUnmount, onMounted, watch, type EffectScope, type Ref } from "vue";
import { openCitation, setCitationResolver } from "@/model/citations";
import { useApiStore } from "@/stores/api";

let installedFor: unknown = null;
let scope: EffectScope | null = null;

function installResolver(api: ReturnType<typeof useApiStore>): void {
  if (installedFor === api) return; // once per page (per store: tests make fresh ones)
  installedFor = api;
  scope?.stop();
  // Detached: the page's resolver must outlive the component that installed it.
  scope = effectScope(true);
  scope.run(() => {
    watch(
      () => api.transport,
      (transport) =>
        setCitationResolver(transport ? async (paths) => (await api.invoke("knowledge.resolve", { paths })).files : null),
      { immediate: true },
    );
  });
}

export interface CitationTarget {
  path: string;
  start: number;
  end: number;
}

/** Open a citation: the system's application in the window, the viewer panel otherwise. */
export function useCitationOpener(): (target: CitationTarget, folder?: boolean) => Promise<void> {
  const api = useApiStore();
  return async (target, folder = false) => {
    if (api.transport?.kind === "pywebview") {
      try {
        await api.invoke("desktop.open_path", { path: target.path, folder });
        return;
      } catch {
        // No opener on this system (or it failed): show the text instead.
      }
    }
    openCitation.value = { ...target, openFailed: api.transport?.kind === "pywebview" };
  };
}

/** Clicks on citation links inside `root` open them. */
export function useCitationLinks(root: Ref<HTMLElement | null>): void {
  installResolver(useApiStore());
  const open = useCitationOpener();
  function onClick(event: MouseEvent): void {
    const link = (event.target as Element | null)?.closest?.("a.kb-cite");
    if (!(link instanceof HTMLAnchorElement)) return;
    event.preventDefault();
    event.stopPropagation();
    const path = link.dataset.kbPath ?? "";
    const start = Number(link.dataset.kbStart);
    const end = Number(link.dataset.kbEnd);
    if (path && start >= 1 && end >= start) void open({ path, start, end });
  }
  onMounted(() => root.value?.addEventListener("click", onClick));
  onBeforeUnmount(() => root.value?.removeEventListener("click", onClick));
}
