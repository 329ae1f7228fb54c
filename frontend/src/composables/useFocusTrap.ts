import { nextTick, onBeforeUnmount, onMounted } from "vue";
import type { Ref } from "vue";

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)];
}

/**
 * Keep Tab / Shift+Tab inside `root` while mounted, focus `initial` (or the first control) on
 * open, and give focus back to whatever had it before on close.
 */
export function useFocusTrap(root: Ref<HTMLElement | null>, initial?: Ref<HTMLElement | null>): void {
  let previous: HTMLElement | null = null;

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

  onMounted(async () => {
    previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    document.addEventListener("keydown", onKey, true);
    await nextTick();
    const target = initial?.value ?? (root.value ? focusables(root.value)[0] : null);
    target?.focus();
  });

  onBeforeUnmount(() => {
    document.removeEventListener("keydown", onKey, true);
    previous?.focus?.();
  });
}
