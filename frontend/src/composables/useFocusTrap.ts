import { computed, nextTick, onBeforeUnmount, ref, watch } from "vue";
import type { ComputedRef, Ref, WatchSource } from "vue";
import { useDialogsStore } from "@/stores/dialogs";

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)];
}

/**
 * Keep Tab / Shift+Tab inside `root` while the trap is on, focus `initial` (or the first
 * control) when it turns on, and give focus back to whatever had it before when it turns off.
 * `on` says when: by default while the component is mounted; a dialog that stays mounted and
 * shows itself with `v-if` passes its own condition, so it takes focus each time it opens (its
 * Esc handler is on the dialog: without focus inside, Esc did nothing until a click).
 */
export function useFocusTrap(
  root: Ref<HTMLElement | null>,
  initial?: Ref<HTMLElement | null>,
  on: WatchSource<boolean> = () => true,
): void {
  let previous: HTMLElement | null = null;
  let trapping = false;

  const onKey = (ev: KeyboardEvent) => {
    const el = root.value;
    if (ev.key !== "Tab" || !el) return;
    const items = focusables(el);
    if (items.length === 0) {
      ev.preventDefault();
      return;
    }
    const first = items[0];
    const last = items[items.length - 1];
    const active = document.activeElement;
    if (ev.shiftKey && (active === first || !el.contains(active))) {
      ev.preventDefault();
      last.focus();
    } else if (!ev.shiftKey && (active === last || !el.contains(active))) {
      ev.preventDefault();
      first.focus();
    }
  };

  const start = async () => {
    if (trapping) return;
    trapping = true;
    previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    document.addEventListener("keydown", onKey, true);
    await nextTick();
    const target = initial?.value ?? (root.value ? focusables(root.value)[0] : null);
    (target ?? root.value)?.focus();
  };

  const stop = () => {
    if (!trapping) return;
    trapping = false;
    document.removeEventListener("keydown", onKey, true);
    previous?.focus?.();
    previous = null;
  };

  watch(on, (active) => void (active ? start() : stop()), { immediate: true, flush: "post" });
  onBeforeUnmount(stop);
}

/**
 * A modal dialog: it asks for its turn while `wanted` is true (stores/dialogs.ts), `shown` is
 * true while it is the one on screen, and the focus trap follows `shown`.
 */
export function useDialog(
  wanted: WatchSource<boolean>,
  root: Ref<HTMLElement | null>,
  initial?: Ref<HTMLElement | null>,
): { shown: ComputedRef<boolean> } {
  const dialogs = useDialogsStore();
  const id = ref<number | null>(null);
  watch(
    wanted,
    (want) => {
      if (want && id.value === null) id.value = dialogs.enter();
      if (!want && id.value !== null) {
        dialogs.leave(id.value);
        id.value = null;
      }
    },
    { immediate: true },
  );
  onBeforeUnmount(() => {
    if (id.value !== null) dialogs.leave(id.value);
  });
  const shown = computed(() => id.value !== null && dialogs.current === id.value);
  useFocusTrap(root, initial, shown);
  return { shown };
}
