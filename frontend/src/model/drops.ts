/**
 * What a drop of files means. A Skill .zip or a folder goes to the Skill import preview, an
 * MCP Bundle (.mcpb) to the bundle install preview (the desktop's Python drop handler does the
 * same with full paths, app/desktop/dnd.py); any other files dropped on the chat area attach to
 * the message being written.
 */

/** The slice of a DataTransfer a drop decision needs (a real DataTransfer fits). */
export interface DroppedItems {
  files: ArrayLike<File>;
  items?: ArrayLike<{ webkitGetAsEntry?: () => { isDirectory: boolean } | null }>;
}

export function isSkillCandidate(data: DroppedItems): boolean {
  for (const file of Array.from(data.files)) {
    if (file.name.toLowerCase().endsWith(".zip")) return true;
  }
  for (const item of Array.from(data.items ?? [])) {
    if (item.webkitGetAsEntry?.()?.isDirectory) return true;
  }
  return false;
}

/** The first MCP Bundle among the dropped files (a bundle is never an attachment). */
export function bundleFile(data: DroppedItems | null | undefined): File | null {
  return Array.from(data?.files ?? []).find((f) => f.name.toLowerCase().endsWith(".mcpb")) ?? null;
}

/** The files to attach when the drop is not a Skill or a bundle (none: leave it to the window's
 * handler, SkillsHost). */
export function attachableFiles(data: DroppedItems | null | undefined): File[] {
  if (!data || isSkillCandidate(data) || bundleFile(data)) return [];
  return Array.from(data.files);
}
