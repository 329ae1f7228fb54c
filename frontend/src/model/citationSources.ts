/**
 * The "Sources" list under an answer that cites its knowledge bases (issue 41): each cited file
 * once, in the order the answer first cites it, with every cited line range. Only paths the
 * backend resolved to a knowledge-base file count (the same rule that makes them links).
 */
import { findCitations, lookupCitation } from "./citations";
import type { CitedFile } from "./citations";

export interface SourceRange {
  start: number;
  end: number;
}

export interface CitedSource {
  file: CitedFile;
  ranges: SourceRange[];
}

export function citedSources(text: string, lookup: typeof lookupCitation = lookupCitation): CitedSource[] {
  const byPath = new Map<string, CitedSource>();
  for (const { cite } of findCitations(text)) {
    const file = lookup(cite.path);
    if (!file) continue;
    let source = byPath.get(file.path);
    if (!source) {
      source = { file, ranges: [] };
      byPath.set(file.path, source);
    }
    if (!source.ranges.some((r) => r.start === cite.start && r.end === cite.end)) {
      source.ranges.push({ start: cite.start, end: cite.end });
    }
  }
  for (const source of byPath.values()) source.ranges.sort((a, b) => a.start - b.start || a.end - b.end);
  return [...byPath.values()];
}

/** The file's own name, for the list (the whole path is its tooltip). */
export function fileName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}
