/**
 * HTML and SVG artifacts: the fence's text shown in a sandboxed frame. The frame loads
 * `artifact.html` (frontend/public, served with its own policy, docs/decisions.md 150 and 290)
 * with the content in the URL fragment, so nothing is stored or posted anywhere and the same file
 * works in `cashcode serve` and in the desktop window. The frame's rules: model/sandboxedFrame.ts.
 */
import { shallowRef } from "vue";

import { SANDBOX_PAGE } from "@/model/sandboxedFrame";

export type ArtifactKind = "html" | "svg";

/** A whole document for the artifact: an SVG is put in a bare page of its own. */
export function artifactDocument(kind: ArtifactKind, source: string): string {
  if (kind === "svg") {
    return `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0;display:grid;place-items:center;min-height:100vh}svg{max-width:100%;height:auto}</style></head><body>${source}</body></html>`;
  }
  return source;
}

function toBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) binary += String.fromCharCode(...bytes.subarray(i, i + step));
  return btoa(binary);
}

/** The frame address for an artifact: the sandbox page at the server's root, never under the
 * UI's secret prefix (the artifact can read its own address). */
export function artifactUrl(kind: ArtifactKind, source: string): string {
  return `${SANDBOX_PAGE}#${encodeURIComponent(toBase64(artifactDocument(kind, source)))}`;
}

/** The artifact shown larger in the side panel (one at a time, for the whole page). */
export interface OpenArtifact {
  kind: ArtifactKind;
  source: string;
}
export const openArtifact = shallowRef<OpenArtifact | null>(null);
