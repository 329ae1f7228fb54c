/**
 * Knowledge-base citation links (model/citations.ts): the backend resolver, installed once for
 * the page, and what a click does. A click opens the viewer panel at the cited lines, in the
 * browser and the desktop window alike: the system's default application cannot be told a line,
 * and its failure would go unseen. In the window "Open in editor" is a second step
 * (`desktop.open_path`, which opens only files of a knowledge base) whose failure is reported.
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

/** Open a citation: the viewer panel at its lines. */
export function useCitationOpener(): (target: CitationTarget) => void {
  return (target) => {
    openCitation.value = { ...target };
  };
}

/** The window's second step: hand the cited file (or its folder) to the system's application.
 * Rejects with the backend's error when it cannot be opened; null outside the window. */
export function useEditorOpener(): ((target: CitationTarget, folder?: boolean) => Promise<void>) | null {
  const api = useApiStore();
  if (api.transport?.kind !== "pywebview") return null;
  return async (target, folder = false) => {
    await api.invoke("desktop.open_path", { path: target.path, folder });
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
    if (path && start >= 1 && end >= start) open({ path, start, end });
  }
  onMounted(() => root.value?.addEventListener("click", onClick));
  onBeforeUnmount(() => root.value?.removeEventListener("click", onClick));
}
