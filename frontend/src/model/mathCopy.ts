/** Copying rendered math gives its TeX: each formula in the copied fragment becomes its source. */

/** Plain text of `fragment` with every formula (`.math[data-tex]`) replaced by its delimited TeX. */
export function textWithTex(fragment: DocumentFragment): string {
  for (const el of Array.from(fragment.querySelectorAll<HTMLElement>(".math[data-tex]"))) {
    const tex = el.dataset.tex ?? "";
    const display = el.dataset.display === "1";
    el.replaceWith(document.createTextNode(display ? `$$${tex}$$` : `$${tex}$`));
  }
  // A selection that starts inside a formula holds a piece of KaTeX's spans: give its source.
  const host = document.createElement("div");
  host.appendChild(fragment);
  return host.textContent ?? "";
}

/** The `copy` handler for a Markdown view: only takes over when the selection holds math. */
export function copyWithTex(event: ClipboardEvent): void {
  const selection = window.getSelection();
  if (!selection || selection.rangeCount === 0 || !event.clipboardData) return;
  const range = selection.getRangeAt(0);
  const start = range.startContainer.parentElement?.closest<HTMLElement>(".math[data-tex]");
  const fragment = range.cloneContents();
  if (!start && !fragment.querySelector(".math[data-tex]")) return;
  let text: string;
  if (start && start === range.endContainer.parentElement?.closest(".math[data-tex]")) {
    // Inside one formula: its whole source.
    text = start.dataset.display === "1" ? `$$${start.dataset.tex}$$` : `$${start.dataset.tex}$`;
  } else {
    text = textWithTex(fragment);
  }
  event.clipboardData.setData("text/plain", text);
  event.preventDefault();
}
