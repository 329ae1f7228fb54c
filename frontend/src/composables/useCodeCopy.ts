import { onMounted, watch } from "vue";
import type { Ref, WatchSource } from "vue";

/**
 * Add a "Copy" button to every rendered code block under `root` (after each render). Buttons are
 * created with DOM APIs, never from model text, so they cannot carry injected markup.
 */
export function useCodeCopy(
  root: Ref<HTMLElement | null>,
  label: () => string,
  source: WatchSource<unknown>,
  enabled: () => boolean = () => true,
): void {
  const decorate = () => {
    const el = root.value;
    if (!el || !enabled()) return;
    for (const pre of el.querySelectorAll<HTMLPreElement>("pre.code-block")) {
      const existing = pre.querySelector<HTMLButtonElement>(":scope > .code-copy");
      if (existing) {
        existing.textContent = label();
        continue;
      }
      const button = document.createElement("button");
      button.type = "button";
      button.className = "code-copy";
      button.textContent = label();
      button.addEventListener("click", () => {
        const code = pre.querySelector("code")?.textContent ?? "";
        void navigator.clipboard?.writeText(code).catch(() => undefined);
      });
      pre.appendChild(button);
    }
  };
  onMounted(decorate);
  watch(source, decorate, { flush: "post" });
}
