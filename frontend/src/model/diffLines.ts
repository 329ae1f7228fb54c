/** A unified diff as typed lines for display (rendered as text, never as HTML). */
export type DiffKind = "add" | "del" | "hunk" | "meta" | "same";

export interface DiffLine {
  kind: DiffKind;
  text: string;
}

export function diffLines(diff: string): DiffLine[] {
  const lines = diff.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((text) => {
    if (text.startsWith("+++") || text.startsWith("---")) return { kind: "meta", text };
    if (text.startsWith("@@")) return { kind: "hunk", text };
    if (text.startsWith("+")) return { kind: "add", text };
    if (text.startsWith("-")) return { kind: "del", text };
    return { kind: "same", text };
  });
}

/** The transcript entry a consolidation divider goes before: the last entry that starts at or
 * before `keepFrom` (entry keys end with the cursor of their first message). */
export function dividerKey(keys: readonly string[], keepFrom: number): string | null {
  let found: string | null = null;
  for (const key of keys) {
    const cursor = Number(key.slice(key.lastIndexOf("-") + 1));
    if (!Number.isFinite(cursor)) continue;
    if (cursor <= keepFrom) found = key;
    else break;
  }
  return found;
}
