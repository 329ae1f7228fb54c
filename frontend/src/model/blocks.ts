/**
 * Split streaming Markdown into finished blocks and a growing tail, so each animation frame
 * re-renders only the tail (finished blocks are rendered once and cached). A block ends at a
 * blank line outside a fenced code block.
 */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

export interface Split {
  blocks: string[];
  tail: string;
}

export function splitBlocks(source: string): Split {
  const lines = source.split("\n");
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  // The last line may still be growing: it always belongs to the tail.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i];
    const m = FENCE.exec(line);
    if (m) {
      const marker = m[1];
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
    }
    if (fence === null && line.trim() === "" && current.some((l) => l.trim() !== "")) {
      blocks.push(current.join("\n"));
      current = [];
      continue;
    }
    current.push(line);
  }
  current.push(lines[lines.length - 1]);
  return { blocks, tail: current.join("\n") };
}

/** Render finished blocks through a cache; only new blocks and the tail are rendered. */
export function createBlockRenderer(render: (source: string) => string) {
  let cache = new Map<string, string>();
  return (source: string): string[] => {
    const { blocks, tail } = splitBlocks(source);
    const next = new Map<string, string>();
    const out = blocks.map((block) => {
      const html = cache.get(block) ?? render(block);
      next.set(block, html);
      return html;
    });
    cache = next;
    if (tail.trim()) out.push(render(tail));
    return out;
  };
}
