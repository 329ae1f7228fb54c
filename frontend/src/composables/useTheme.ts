import { onScopeDispose, watch } from "vue";
import type { Ref } from "vue";
import type { Theme } from "@/stores/settings";

export type Resolved = "light" | "dark";

/** Pure: the theme to paint for a setting and the system preference. */
export function resolveTheme(theme: Theme, systemDark: boolean): Resolved {
  if (theme === "system") return systemDark ? "dark" : "light";
  return theme;
}

export function applyTheme(root: HTMLElement, resolved: Resolved): void {
  root.classList.toggle("theme-dark", resolved === "dark");
  root.classList.toggle("theme-light", resolved === "light");
  root.style.colorScheme = resolved;
}

/** Keep a class on <html> in step with the setting (and with the OS when it is "system"). */
export function useTheme(theme: Ref<Theme>, root: HTMLElement = document.documentElement): void {
  const query = typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  const paint = () => applyTheme(root, resolveTheme(theme.value, query?.matches ?? false));
  watch(theme, paint, { immediate: true });
  query?.addEventListener("change", paint);
  onScopeDispose(() => query?.removeEventListener("change", paint));
}
