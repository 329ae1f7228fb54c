import { onMounted, watch } from "vue";
import type { Ref, WatchSource } from "vue";

/**
 * Add a "Copy" button to every rendered code block under `root` (after each render). Buttons are
 * created with DOM APIs, never from model text, so they cannot carry injected markup.
 */
const COPIED_MS = 1500;

/** The highlighted language of a block (`language-xxx` on its code), or "". */
export function codeLanguage(pre: Element): string {
  const cls = [...(pre.querySelector("code")?.classList ?? [])].find((c) => c.startsWith("language-"));
  return cls ? cls.slice("language-".length) : "";
}

export function useCodeCopy(
  root: Ref<HTMLElement | null>,
  label: () => string,
  source: WatchSource<unknown>,
  enabled: () => boolean = () => true,
  copiedLabel: () => string = label,
): void {
  const decorate = () => {
    const el = root.value;
    if (!el || !enabled()) return;
    for (const pre of el.querySelectorAll<HTMLPreElement>("pre.code-block")) {
      const lang = codeLanguage(pre);
      if (lang && !pre.querySelector(":scope > .code-lang")) {
        const tag = document.createElement("span");
        tag.className = "code-lang";
        tag.textContent = lang; // from our own class name, set as text
        pre.appendChild(tag);
      }
      const existing = pre.querySelector<HTMLButtonElement>(":scope > .code-copy");
      if (existing) {
        if (!existing.dataset.copied) existing.textContent = label();
        continue;
      }
      const button = document.createElement("button");
      button.type = "button";
      button.className = "code-copy";
      button.textContent = label();
      button.addEventListener("click", () => {
        const code = pre.querySelector("code")?.textContent ?? "";
        void navigator.clipboard
          ?.writeText(code)
          .then(() => {
            button.dataset.copied = "1";
            button.textContent = copiedLabel();
            setTimeout(() => {
              delete button.dataset.copied;
              button.textContent = label();
            }, COPIED_MS);
          })
          .catch(() => undefined);
      });
      pre.appendChild(button);
    }
  };
  onMounted(decorate);
  watch(source, decorate, { flush: "post" });
}
