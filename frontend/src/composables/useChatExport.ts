import { ref } from "vue";
import type { ChatSummary } from "@/api/generated";
import { chatToHtml } from "@/model/htmlExport";
import { errorMessage, useApiStore } from "@/stores/api";

export type ExportFormat = "md" | "json" | "html";

/** Offer `content` as a file download (browser: `cashcode serve`). */
export function downloadText(filename: string, mime: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: `${mime};charset=utf-8` }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.rel = "noopener";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Export the chat (download in a browser; the desktop window saves to Downloads) and import a
 * JSON export back. `notice` says where a file went; `error` what went wrong. */
export function useChatExport() {
  const api = useApiStore();
  const busy = ref(false);
  const notice = ref("");
  const error = ref("");

  async function exportChat(chatId: string, format: ExportFormat): Promise<string | null> {
    busy.value = true;
    notice.value = "";
    error.value = "";
    try {
      const desktop = api.transport?.kind === "pywebview";
      if (format === "html") return (notice.value = await exportHtml(chatId, desktop));
      const out = await api.invoke("chats.export", { chat_id: chatId, format, save_to_downloads: desktop });
      if (out.saved_path) return (notice.value = out.saved_path);
      downloadText(out.filename, out.mime, out.content);
      return (notice.value = out.filename);
    } catch (err) {
      error.value = errorMessage(err);
      return null;
    } finally {
      busy.value = false;
    }
  }

  /** HTML: the Markdown export (the active path, sources kept) rendered here with math and
   * diagrams as static markup (model/htmlExport.ts); the backend names and, for the window, saves it. */
  async function exportHtml(chatId: string, desktop: boolean): Promise<string> {
    const md = await api.invoke("chats.export", { chat_id: chatId, format: "md", save_to_downloads: false });
    const title = /^# (.*)$/m.exec(md.content)?.[1] ?? "Chat";
    const html = await chatToHtml(title, md.content);
    if (desktop) {
      const out = await api.invoke("chats.export", { chat_id: chatId, format: "html", html, save_to_downloads: true });
      return out.saved_path ?? out.filename;
    }
    const filename = md.filename.replace(/\.md$/, ".html");
    downloadText(filename, "text/html", html);
    return filename;
  }

  async function importFile(file: File): Promise<ChatSummary | null> {
    busy.value = true;
    notice.value = "";
    error.value = "";
    try {
      return await api.invoke("chats.import", { content: await file.text() });
    } catch (err) {
      error.value = errorMessage(err);
      return null;
    } finally {
      busy.value = false;
    }
  }

  return { busy, notice, error, exportChat, importFile };
}
