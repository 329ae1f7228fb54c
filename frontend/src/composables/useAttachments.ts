import { computed, ref } from "vue";
import type { AttachmentRef } from "@/model/attachments";
import { useI18n } from "@/i18n";
import type { Refusal } from "@/model/attachments";
import { admit, base64Of } from "@/model/attachments";
import { errorMessage, useApiStore } from "@/stores/api";
import { useAttachmentPreviews } from "@/stores/attachmentPreviews";

export interface PendingFile {
  id: number;
  name: string;
  size: number;
  status: "uploading" | "ready" | "error";
  preview: string; // data: URL for images, "" otherwise
  ref: AttachmentRef | null;
  error: string;
}

function readDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ""));
    reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/** Files on the composer: limits checked at once, each uploaded (`attachments.upload`) as soon
 * as it is added, so sending only passes references. */
export function useAttachments() {
  const api = useApiStore();
  const previews = useAttachmentPreviews();
  const { t } = useI18n();
  const files = ref<PendingFile[]>([]);
  const notice = ref("");
  let nextId = 1;

  const refs = computed(() => files.value.flatMap((f) => (f.ref ? [f.ref] : [])));
  const uploading = computed(() => files.value.some((f) => f.status === "uploading"));
  const failed = computed(() => files.value.some((f) => f.status === "error"));

  function describe(refused: Refusal[]): string {
    return refused
      .map((r) => (r.key === "attach.tooMany" ? t("attach.tooMany", { max: r.max }) : t("attach.tooLarge", { name: r.name, mb: r.mb })))
      .join(" ");
  }

  async function upload(item: PendingFile, file: File): Promise<void> {
    const target = () => files.value.find((f) => f.id === item.id);
    try {
      const url = await readDataUrl(file);
      const uploaded = await api.invoke("attachments.upload", { name: file.name || "pasted.png", mime: file.type, data_base64: base64Of(url) });
      const current = target();
      if (!current) return; // removed meanwhile
      current.ref = uploaded;
      current.status = "ready";
      current.preview = uploaded.kind === "image" ? url : "";
      if (uploaded.kind === "image") previews.remember(uploaded.sha256, url);
    } catch (err) {
      const current = target();
      if (current) {
        current.status = "error";
        current.error = errorMessage(err);
      }
    }
  }

  function add(list: readonly File[]): void {
    const { ok, refused } = admit(list, files.value.length);
    notice.value = describe(refused);
    for (const file of ok) {
      const item: PendingFile = { id: nextId++, name: file.name || "pasted.png", size: file.size, status: "uploading", preview: "", ref: null, error: "" };
      files.value.push(item);
      void upload(files.value[files.value.length - 1], file);
    }
  }

  /** References already stored elsewhere (an MCP resource): ready at once, same limit. */
  function addRefs(list: readonly AttachmentRef[]): void {
    const { ok, refused } = admit(list, files.value.length);
    notice.value = describe(refused);
    for (const r of ok) files.value.push({ id: nextId++, name: r.name, size: r.size, status: "ready", preview: "", ref: r, error: "" });
  }

  function remove(id: number): void {
    files.value = files.value.filter((f) => f.id !== id);
    notice.value = "";
  }

  function clear(): void {
    files.value = [];
    notice.value = "";
  }

  return { files, refs, uploading, failed, notice, add, addRefs, remove, clear };
}
