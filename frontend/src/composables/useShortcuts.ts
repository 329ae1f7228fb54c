import { onBeforeUnmount, onMounted } from "vue";

export interface Shortcut {
  /** Lower-case key, e.g. "n" or ",". */
  key: string;
  /** Require Ctrl (or ⌘ on macOS). */
  mod?: boolean;
  shift?: boolean;
  run: (ev: KeyboardEvent) => void;
}

/** Pure: does this key event match the shortcut? */
export function matches(ev: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey" | "altKey">, s: Shortcut): boolean {
  const mod = ev.ctrlKey || ev.metaKey;
  return ev.key.toLowerCase() === s.key && mod === Boolean(s.mod) && ev.shiftKey === Boolean(s.shift) && !ev.altKey;
}

/** Global keyboard shortcuts, active while the calling component is mounted. */
export function useShortcuts(shortcuts: Shortcut[], target: Window = window): void {
  const onKey = (ev: KeyboardEvent) => {
    if (ev.defaultPrevented || ev.isComposing) return;
    const hit = shortcuts.find((s) => matches(ev, s));
    if (!hit) return;
    ev.preventDefault();
    hit.run(ev);
  };
  onMounted(() => target.addEventListener("keydown", onKey));
  onBeforeUnmount(() => target.removeEventListener("keydown", onKey));
}
