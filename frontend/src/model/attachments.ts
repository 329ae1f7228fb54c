/** Pure rules for files on the composer (the backend checks the same limits again). */
import type { AttachmentRefOutput } from "@/api/generated";

/** A stored file's reference as the backend returns it (`attachments.upload`, messages). */
export type AttachmentRef = AttachmentRefOutput;

export const MAX_FILES = 10;
export const MAX_FILE_BYTES = 20 * 1024 * 1024;

export type Refusal = { key: "attach.tooMany"; max: number } | { key: "attach.tooLarge"; name: string; mb: number };

/** Which of `files` can be added next to `already` attached ones, and why the others cannot. */
export function admit<T extends { name: string; size: number }>(files: readonly T[], already: number): { ok: T[]; refused: Refusal[] } {
  const ok: T[] = [];
  const refused: Refusal[] = [];
  for (const file of files) {
    if (file.size > MAX_FILE_BYTES) refused.push({ key: "attach.tooLarge", name: file.name, mb: MAX_FILE_BYTES / (1024 * 1024) });
    else if (already + ok.length >= MAX_FILES) {
      if (!refused.some((r) => r.key === "attach.tooMany")) refused.push({ key: "attach.tooMany", max: MAX_FILES });
    } else ok.push(file);
  }
  return { ok, refused };
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The base64 payload of a `data:` URL (FileReader.readAsDataURL). */
export function base64Of(dataUrl: string): string {
  const comma = dataUrl.indexOf(",");
  return comma >= 0 ? dataUrl.slice(comma + 1) : "";
}
