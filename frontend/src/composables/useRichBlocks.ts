import { onMounted, watch } from "vue";
import type { Ref, WatchSource } from "vue";
import type { MessageKey } from "@/i18n/en";
import { ARTIFACT_SANDBOX, type ArtifactKind, artifactUrl, openArtifact } from "@/model/artifacts";
import { renderDiagram } from "@/model/diagrams";
import { svgToPng } from "@/model/fileSave";

type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;
type Save = (blob: Blob, filename: string) => Promise<string>;

function button(text: string, className: string, onClick: () => void, title?: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = className;
  b.textContent = text;
  if (title) b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function sourceOf(block: HTMLElement): string {
  return block.querySelector("pre code")?.textContent ?? "";
}

async function drawDiagram(block: HTMLElement, t: Translate, save: Save): Promise<void> {
  const source = sourceOf(block);
  block.dataset.state = "loading";
  const status = document.createElement("div");
  status.className = "diagram-status";
  status.setAttribute("role", "status");
  status.textContent = t("rich.diagramLoading");
  block.prepend(status);
  const result = await renderDiagram(source);
  status.remove();
  if (!block.isConnected) return;
  if (!result.ok) {
    block.dataset.state = "error";
    const error = document.createElement("div");
    error.className = "diagram-error";
    error.setAttribute("role", "alert");
    const label = document.createElement("strong");
    label.textContent = t("rich.diagramError");
    const message = document.createElement("span");
    message.className = "diagram-error-message";
    message.textContent = ` ${result.error}`;
    error.append(label, message);
    block.prepend(error); // the source below stays visible
    return;
  }
  block.dataset.state = "rendered";
  const view = document.createElement("div");
  view.className = "diagram-view";
  // Sanitised by model/diagrams.ts (DOMPurify, SVG profile, no links or foreign objects).
  view.innerHTML = result.svg;
  const bar = document.createElement("div");
  bar.className = "rich-toolbar";
  const toggle = button(t("rich.showSource"), "rich-button diagram-toggle", () => {
    const showing = block.classList.toggle("show-source");
    toggle.textContent = showing ? t("rich.showDiagram") : t("rich.showSource");
    toggle.setAttribute("aria-pressed", String(showing));
  });
  toggle.setAttribute("aria-pressed", "false");
  const svg = () => new Blob([result.svg], { type: "image/svg+xml" });
  bar.append(
    toggle,
    button(t("rich.exportSvg"), "rich-button diagram-svg", () => void save(svg(), "diagram.svg").catch(() => undefined), t("rich.exportSvgTitle")),
    button(
      t("rich.exportPng"),
      "rich-button diagram-png",
      () => void svgToPng(result.svg).then((png) => save(png, "diagram.png")).catch(() => undefined),
      t("rich.exportPngTitle"),
    ),
  );
  block.prepend(bar, view);
}

function decorateArtifact(block: HTMLElement, t: Translate): void {
  const kind = (block.dataset.lang === "svg" ? "svg" : "html") as ArtifactKind;
  const bar = document.createElement("div");
  bar.className = "rich-toolbar";
  let frame: HTMLIFrameElement | null = null;
  const preview = button(
    t("rich.preview"),
    "rich-button artifact-preview",
    () => {
      if (frame) {
        frame.remove();
        frame = null;
        preview.textContent = t("rich.preview");
        return;
      }
      frame = createArtifactFrame(kind, sourceOf(block), t("rich.frameTitle", { kind: kind.toUpperCase() }));
      frame.className = "artifact-frame";
      block.append(frame);
      preview.textContent = t("rich.hidePreview");
    },
    t("rich.previewTitle"),
  );
  bar.append(
    preview,
    button(t("rich.openLarger"), "rich-button artifact-open", () => {
      openArtifact.value = { kind, source: sourceOf(block) };
    }),
  );
  block.prepend(bar);
}

/** A frame for an artifact: sandbox="allow-scripts" only, never allow-same-origin. */
export function createArtifactFrame(kind: ArtifactKind, source: string, title: string): HTMLIFrameElement {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", ARTIFACT_SANDBOX);
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.title = title;
  frame.src = artifactUrl(kind, source);
  return frame;
}

/**
 * Give the complete blocks under `root` their rich parts after each render: Mermaid diagrams are
 * drawn, HTML/SVG fences get a Preview. `complete(chunk)` says whether a chunk's blocks are done
 * (while streaming only the finished chunks are; the open one is left as source). Everything is
 * made with DOM APIs, never from model text.
 */
export function useRichBlocks(
  root: Ref<HTMLElement | null>,
  t: Translate,
  source: WatchSource<unknown>,
  complete: (chunk: Element) => boolean,
  save: Save,
): void {
  const decorate = () => {
    const el = root.value;
    if (!el) return;
    for (const chunk of el.querySelectorAll(":scope > .md-chunk")) {
      if (!complete(chunk)) continue;
      for (const block of chunk.querySelectorAll<HTMLElement>(".diagram-block:not([data-state])")) void drawDiagram(block, t, save);
      for (const block of chunk.querySelectorAll<HTMLElement>(".artifact-block:not([data-decorated])")) {
        block.dataset.decorated = "1";
        decorateArtifact(block, t);
      }
    }
  };
  onMounted(decorate);
  watch(source, decorate, { flush: "post" });
}
