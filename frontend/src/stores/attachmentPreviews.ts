import { defineStore } from "pinia";
import { ref } from "vue";
import { useApiStore } from "./api";

/** Thumbnails of stored image attachments (data: URLs, fetched once per image). */
export const useAttachmentPreviews = defineStore("attachmentPreviews", () => {
  const api = useApiStore();
  const urls = ref<Record<string, string>>({});
  const asked = new Set<string>();

  function remember(sha256: string, url: string): void {
    urls.value[sha256] = url;
    asked.add(sha256);
  }

  async function load(sha256: string): Promise<void> {
    if (asked.has(sha256)) return;
    asked.add(sha256);
    try {
      const data = await api.invoke("attachments.data", { sha256 });
      urls.value[sha256] = `data:${data.mime};base64,${data.data_base64}`;
    } catch {
      // A missing file shows as a chip without a thumbnail.
    }
  }

  return { urls, remember, load };
});
