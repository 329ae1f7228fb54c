import { defineStore } from "pinia";
import { ref } from "vue";
import type {
  AppEvent,
  SkillContent,
  SkillDetail,
  SkillDiagnosticView,
  SkillImportPreview,
  SkillImportSource,
  SkillItem,
  SkillVersionView,
} from "@/api/generated";
import { errorCode, errorMessage, useApiStore } from "./api";

export const PAGE_SIZE = 20;

/** What the import preview dialog is showing: where the package comes from and its preview. */
export interface PendingImport {
  source: SkillImportSource;
  label: string;
  preview: SkillImportPreview | null;
  error: string;
  busy: boolean;
  done: string;
}

/** The Skill Market: paginated search, one selected Skill, editing, versions, import/export. */
export const useSkillsStore = defineStore("skills", () => {
  const api = useApiStore();
  const query = ref("");
  const page = ref(1);
  const items = ref<SkillItem[]>([]);
  const total = ref(0);
  const invalid = ref<SkillDiagnosticView[]>([]);
  const loading = ref(false);
  const error = ref("");
  const selected = ref<SkillDetail | null>(null);
  const content = ref<SkillContent | null>(null);
  const versions = ref<SkillVersionView[]>([]);
  const pending = ref<PendingImport | null>(null);
  let loadSeq = 0;

  async function load(): Promise<void> {
    const seq = ++loadSeq;
    loading.value = true;
    try {
      const res = await api.invoke("skills.list", { query: query.value, page: page.value, page_size: PAGE_SIZE });
      if (seq !== loadSeq) return; // a newer search answered first
      items.value = res.items;
      total.value = res.total;
      invalid.value = res.invalid;
      error.value = "";
    } catch (err) {
      if (seq === loadSeq) error.value = errorMessage(err);
    } finally {
      if (seq === loadSeq) loading.value = false;
    }
  }

  async function search(q: string): Promise<void> {
    query.value = q;
    page.value = 1;
    await load();
  }

  async function goPage(n: number): Promise<void> {
    page.value = Math.max(1, n);
    await load();
  }

  async function open(name: string): Promise<void> {
    const [detail, text] = await Promise.all([
      api.invoke("skills.get", { name }),
      api.invoke("skills.content", { name }),
    ]);
    selected.value = detail;
    content.value = text;
    versions.value = detail.skill.writable ? (await api.invoke("skills.versions", { name })).versions : [];
  }

  function close(): void {
    selected.value = null;
    content.value = null;
    versions.value = [];
  }

  /** Save with the hash the editor was opened with; on a conflict the caller keeps its draft. */
  async function save(name: string, text: string, baseHash: string): Promise<"saved" | "conflict"> {
    try {
      content.value = await api.invoke("skills.save", { name, content: text, base_hash: baseHash });
    } catch (err) {
      if (errorCode(err) === "conflict") return "conflict";
      throw err;
    }
    await Promise.all([open(name), load()]);
    return "saved";
  }

  async function setEnabled(name: string, enabled: boolean): Promise<void> {
    await api.invoke("skills.set_enabled", { name, enabled });
    await Promise.all([open(name), load()]);
  }

  async function remove(name: string): Promise<void> {
    await api.invoke("skills.delete", { name });
    close();
    await load();
  }

  async function rollback(name: string, version: string): Promise<void> {
    await api.invoke("skills.rollback", { name, version });
    await Promise.all([open(name), load()]);
  }

  async function removeInvalid(diag: SkillDiagnosticView): Promise<void> {
    await api.invoke("skills.invalid_delete", { source: diag.source, directory: diag.directory });
    await load();
  }

  async function exportZip(name: string): Promise<{ filename: string; data_base64: string }> {
    return api.invoke("skills.export", { name });
  }

  /** Open the import preview for a path (desktop drop, native dialog) or uploaded bytes. */
  let previewSeq = 0;

  async function preview(source: SkillImportSource, label: string): Promise<void> {
    const seq = ++previewSeq; // a newer drop replaces an older preview
    pending.value = { source, label, preview: null, error: "", busy: true, done: "" };
    try {
      const result = await api.invoke("skills.import_preview", source);
      if (seq === previewSeq && pending.value) pending.value = { ...pending.value, preview: result, busy: false };
    } catch (err) {
      if (seq === previewSeq && pending.value) pending.value = { ...pending.value, error: errorMessage(err), busy: false };
    }
  }

  async function confirmImport(): Promise<void> {
    const p = pending.value;
    if (!p) return;
    pending.value = { ...p, busy: true, error: "" };
    try {
      const item = await api.invoke("skills.import", p.source);
      pending.value = { ...p, busy: false, done: item.name };
      await load();
    } catch (err) {
      pending.value = { ...p, busy: false, error: errorMessage(err) };
    }
  }

  function clearImport(): void {
    pending.value = null;
  }

  /** Events: a change on disk reloads the list; a drop outside the page opens the preview. */
  function applyBatch(batch: AppEvent[]): void {
    for (const ev of batch) {
      if (ev.type === "skills_changed") void load();
      else if (ev.type === "import_skill_requested") void preview({ path: ev.path }, ev.path);
    }
  }

  return {
    query,
    page,
    items,
    total,
    invalid,
    loading,
    error,
    selected,
    content,
    versions,
    pending,
    load,
    search,
    goPage,
    open,
    close,
    save,
    setEnabled,
    remove,
    rollback,
    removeInvalid,
    exportZip,
    preview,
    confirmImport,
    clearImport,
    applyBatch,
  };
});

/** Read a File as base64 (without the data-URL prefix), for `skills.import {data_base64}`. */
export function fileToBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error("read failed"));
    reader.onload = () => {
      const url = String(reader.result ?? "");
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.readAsDataURL(file);
  });
}
