import { onMounted, onUnmounted, watch } from "vue";
import type { Ref } from "vue";
import type { MessageKey } from "@/i18n/en";
import { type ArtifactKind, artifactUrl, openArtifact } from "@/model/artifacts";
import { renderDiagram } from "@/model/diagrams";
import { svgToPng } from "@/model/fileSave";
import { applySandboxRules } from "@/model/sandboxedFrame";

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

/** A frame for an artifact, with the rules of model/sandboxedFrame.ts. */
export function createArtifactFrame(kind: ArtifactKind, source: string, title: string): HTMLIFrameElement {
  const frame = document.createElement("iframe");
  applySandboxRules(frame);
  frame.title = title;
  frame.src = artifactUrl(kind, source);
  return frame;
}

/** How long every stream in the page must be quiet before a finished diagram is drawn. */
export const STREAM_PAUSE_MS = 400;
const DRAW_TIMEOUT_MS = 10_000;

type IdleHandle = { cancel: () => void };

/** Run `cb` when the page is idle (after the frame in hand), or within a second at the latest. */
function whenIdle(cb: () => void): IdleHandle {
  if (typeof requestIdleCallback === "function") {
    const id = requestIdleCallback(cb, { timeout: 1000 });
    return { cancel: () => cancelIdleCallback(id) };
  }
  const id = setTimeout(cb, 0);
  return { cancel: () => clearTimeout(id) };
}

/**
 * One queue of diagrams to draw for the whole page. Drawing one is a long task on the UI thread
 * (library load, layout, SVG insert) and every token that arrives meanwhile waits for it, so
 * nothing is drawn while any reply in the page is streaming: only after STREAM_PAUSE_MS without
 * stream activity (a tool call, the model pausing, the end of the reply), one diagram per idle
 * callback (docs/decisions.md 260). Exported for the tests.
 */
export function createDrawQueue(now: () => number = () => Date.now()) {
  const jobs: { block: HTMLElement; draw: () => Promise<void> }[] = [];
  let lastActivity = -Infinity;
  let idle: IdleHandle | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let drawing = false;

  const quietFor = () => now() - lastActivity;
  function schedule(): void {
    if (drawing || idle !== null || jobs.length === 0) return;
    const wait = STREAM_PAUSE_MS - quietFor();
    if (wait > 0) {
      if (timer === null) {
        timer = setTimeout(() => {
          timer = null;
          schedule();
        }, wait);
      }
      return;
    }
    idle = whenIdle(next);
  }
  function next(): void {
    idle = null;
    if (quietFor() < STREAM_PAUSE_MS) return schedule(); // a stream started since
    const job = jobs.shift();
    if (!job) return;
    if (!job.block.isConnected || job.block.dataset.state !== "queued") return schedule();
    drawing = true;
    // One at a time; a draw that never settles must not hold the rest of the page's diagrams.
    let release: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (release = setTimeout(resolve, DRAW_TIMEOUT_MS)));
    void Promise.race([job.draw(), bound])
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(release);
        drawing = false;
        schedule();
      });
  }
  return {
    /** A reply in the page received tokens (or a turn started): hold the queue. */
    activity(): void {
      lastActivity = now();
    },
    add(block: HTMLElement, draw: () => Promise<void>): void {
      block.dataset.state = "queued"; // its source stays shown until it is drawn
      jobs.push({ block, draw });
      schedule();
    },
    /** Forget the jobs of blocks no longer in the page (a view unmounted). */
    prune(): void {
      for (let i = jobs.length - 1; i >= 0; i--) if (!jobs[i].block.isConnected) jobs.splice(i, 1);
    },
    get size(): number {
      return jobs.length;
    },
  };
}

export const drawQueue = createDrawQueue();

/** Tell the page's draw queue that a reply is streaming (AssistantMessage, MarkdownView). */
export function noteStreamActivity(): void {
  drawQueue.activity();
}

/** Whether a chunk's HTML can hold a diagram or artifact block (a string search, no DOM walk). */
function mayHoldRichBlocks(html: string): boolean {
  return html.includes('class="diagram-block"') || html.includes('class="artifact-block"');
}

/**
 * Give the complete blocks under `root` their rich parts after each render: HTML/SVG fences get a
 * Preview at once (a few buttons); Mermaid diagrams go to the page's draw queue, which draws them
 * after the frame and never while a reply streams (`drawQueue`). `complete(chunk)` says whether a
 * chunk's blocks are done (while streaming only the finished chunks are; the open one stays
 * source); `streaming()` marks each update as stream activity. Everything is made with DOM APIs,
 * never from model text.
 */
export function useRichBlocks(
  root: Ref<HTMLElement | null>,
  t: Translate,
  chunks: () => readonly string[],
  complete: (chunk: Element) => boolean,
  save: Save,
  streaming: () => boolean = () => false,
): void {
  // The HTML each chunk had when its blocks were handed out: a finished chunk keeps the same
  // string while the reply streams, so each batch looks only at the chunks that changed.
  const scanned: string[] = [];
  const decorate = () => {
    const el = root.value;
    if (!el) return;
    const list = chunks();
    scanned.length = Math.min(scanned.length, list.length);
    for (let i = 0; i < list.length; i++) {
      const chunk = el.children[i];
      if (scanned[i] === list[i] || !chunk || !complete(chunk)) continue;
      scanned[i] = list[i];
      if (!mayHoldRichBlocks(list[i])) continue;
      for (const block of chunk.querySelectorAll<HTMLElement>(".diagram-block:not([data-state]), .artifact-block:not([data-decorated])")) {
        if (block.classList.contains("diagram-block")) {
          drawQueue.add(block, () => drawDiagram(block, t, save));
        } else {
          block.dataset.decorated = "1";
          decorateArtifact(block, t);
        }
      }
    }
  };
  const update = () => {
    if (streaming()) drawQueue.activity();
    decorate();
  };

  onMounted(update);
  watch(chunks, update, { flush: "post" });
  onUnmounted(() => drawQueue.prune()); // a job of a block no longer in the page is dropped anyway
}
