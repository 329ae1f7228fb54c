/**
 * Mermaid diagrams, loaded on demand: the first ```mermaid block imports the library (its own
 * chunk), so start-up and the entry bundle do not pay for it. `securityLevel: "strict"` (Mermaid
 * sanitises labels and refuses click handlers) and no HTML labels (no foreignObject; the build fixes
 * how Mermaid writes SVG label text: frontend/dev/mermaidLabelText.ts). The SVG is
 * sanitised again with the SVG profile before it is shown. Results are cached by source: the
 * same block re-rendered when a reply finishes streaming costs nothing.
 */
import DOMPurify from "dompurify";

export type DiagramResult = { ok: true; svg: string } | { ok: false; error: string };

type Mermaid = typeof import("mermaid").default;

let mermaid: Promise<Mermaid> | null = null;
const cache = new Map<string, Promise<DiagramResult>>();
const CACHE_LIMIT = 64;
let counter = 0;

const svgPurifier = DOMPurify(window);

function loadMermaid(): Promise<Mermaid> {
  mermaid ??= import("mermaid").then(({ default: m }) => {
    m.initialize({
      startOnLoad: false,
      securityLevel: "strict",
      // Mermaid 12 lays flowcharts out with ELK by default: a 1.5 MB chunk loaded on the first
      // diagram and a slower layout on the UI thread. Dagre (Mermaid's layout before 12) is in
      // the core chunks already (docs/decisions.md 261).
      layout: "dagre",
      htmlLabels: false,
      flowchart: { htmlLabels: false },
      theme: "neutral",
      fontFamily: "system-ui, sans-serif",
    });
    return m;
  });
  return mermaid;
}

// The first diagram's cost (library load + first render), for bench/bench_desktop.py.
const FIRST_DIAGRAM_MEASURE = "cashcode:first-diagram";
let measured = false;

async function draw(source: string): Promise<DiagramResult> {
  const started = performance.now();
  try {
    const m = await loadMermaid();
    counter += 1;
    const { svg } = await m.render(`cc-diagram-${counter}`, source);
    const clean = svgPurifier.sanitize(svg, {
      USE_PROFILES: { svg: true, svgFilters: true },
      ADD_TAGS: ["style"],
      FORBID_TAGS: ["foreignObject", "script", "a", "image", "use"],
      FORBID_ATTR: ["href", "xlink:href"],
    }) as string;
    if (!measured) {
      measured = true;
      performance.measure(FIRST_DIAGRAM_MEASURE, { start: started });
    }
    return { ok: true, svg: clean };
  } catch (error) {
    // Mermaid leaves its error drawing in the page under the render id; remove it.
    document.getElementById(`dcc-diagram-${counter}`)?.remove();
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** The diagram for `source` as sanitised SVG markup, or Mermaid's error message. */
export function renderDiagram(source: string): Promise<DiagramResult> {
  let hit = cache.get(source);
  if (!hit) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    hit = draw(source);
    cache.set(source, hit);
  }
  return hit;
}

/** Whether Mermaid has been requested in this page (the lazy-load test reads it). */
export function mermaidRequested(): boolean {
  return mermaid !== null;
}
