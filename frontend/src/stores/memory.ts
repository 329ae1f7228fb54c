import { defineStore } from "pinia";
import { ref } from "vue";
import type {
  ForgottenItem,
  LineSourceItem,
  MemoryDoc,
  MemoryItem,
  MemorySettings,
  MemorySettingsPatch,
  MemoryVersionItem,
  NoteItem,
  ProposalItem,
  SoulDoc,
  TodoItem,
} from "@/api/generated";
import { useApiStore } from "./api";

/** The Memory view's data: MEMORY.md and its versions, Dream's inbox, explicit memories,
 * SOUL.md, notes and todos, and the memory settings. Each panel loads what it shows. */
export const useMemoryStore = defineStore("memory", () => {
  const api = useApiStore();
  const doc = ref<MemoryDoc | null>(null);
  const docError = ref("");
  const versions = ref<MemoryVersionItem[]>([]);
  const proposals = ref<ProposalItem[]>([]);
  const memories = ref<MemoryItem[]>([]);
  const total = ref(0);
  const soul = ref<SoulDoc | null>(null);
  const notes = ref<NoteItem[]>([]);
  const todos = ref<TodoItem[]>([]);
  const settings = ref<MemorySettings | null>(null);
  const forgotten = ref<ForgottenItem[]>([]);

  async function loadDoc(): Promise<void> {
    docError.value = "";
    try {
      doc.value = await api.invoke("memory.get", {});
    } catch (err) {
      doc.value = null;
      docError.value = err instanceof Error ? err.message : String(err);
    }
    versions.value = (await api.invoke("memory.versions", {})).versions;
  }

  async function saveDoc(text: string): Promise<void> {
    doc.value = await api.invoke("memory.save", { text, base_hash: doc.value?.hash ?? null });
    docError.value = "";
    versions.value = (await api.invoke("memory.versions", {})).versions;
  }

  async function revert(versionId: number): Promise<void> {
    doc.value = await api.invoke("memory.revert", { version_id: versionId });
    docError.value = "";
    versions.value = (await api.invoke("memory.versions", {})).versions;
  }

  async function loadProposals(): Promise<void> {
    proposals.value = (await api.invoke("dream.proposals", {})).proposals;
  }

  async function decide(id: string, accept: boolean): Promise<void> {
    if (accept) await api.invoke("dream.accept", { id });
    else await api.invoke("dream.reject", { id });
    await Promise.all([loadProposals(), loadDoc()]);
  }

  async function search(words: string[], tags: string[]): Promise<void> {
    const found = words.length || tags.length
      ? await api.invoke("memories.search", { words, tags })
      : await api.invoke("memories.list", {});
    memories.value = found.memories;
    total.value = found.total;
  }

  async function addMemory(content: string, tags: string[]): Promise<void> {
    await api.invoke("memories.add", { content, tags });
  }

  async function updateMemory(item: MemoryItem, content: string, tags: string[]): Promise<void> {
    await api.invoke("memories.update", { id: item.id, content, tags, expected_updated_at: item.updated_at });
  }

  async function deleteMemory(item: MemoryItem): Promise<void> {
    await api.invoke("memories.delete", { id: item.id, expected_updated_at: item.updated_at });
    memories.value = memories.value.filter((m) => m.id !== item.id);
    total.value = Math.max(0, total.value - 1);
  }

  async function loadSoul(): Promise<void> {
    soul.value = await api.invoke("soul.get", {});
  }

  async function saveSoul(text: string): Promise<void> {
    soul.value = await api.invoke("soul.save", { text });
  }

  async function loadNotes(): Promise<void> {
    const [n, t] = await Promise.all([api.invoke("notes.list", {}), api.invoke("todos.list", {})]);
    notes.value = n.notes;
    todos.value = t.todos;
  }

  async function addNote(title: string, content: string): Promise<void> {
    await api.invoke("notes.create", { title, content });
    await loadNotes();
  }

  async function deleteNote(id: string): Promise<void> {
    await api.invoke("notes.delete", { id });
    await loadNotes();
  }

  async function addTodo(title: string): Promise<void> {
    await api.invoke("todos.create", { title });
    await loadNotes();
  }

  async function completeTodo(id: string): Promise<void> {
    await api.invoke("todos.complete", { id });
    await loadNotes();
  }

  async function deleteTodo(id: string): Promise<void> {
    await api.invoke("todos.delete", { id });
    await loadNotes();
  }

  async function loadSettings(): Promise<void> {
    settings.value = await api.invoke("memory.settings", {});
  }

  async function updateSettings(patch: MemorySettingsPatch): Promise<void> {
    settings.value = await api.invoke("memory.settings_update", patch);
  }

  /** Where a MEMORY.md line came from (newest first; empty: written by hand). */
  async function sourcesOf(line: string): Promise<LineSourceItem[]> {
    const found = await api.invoke("memory.why", { text: line });
    return found.lines.find((l) => l.line === line)?.sources ?? found.lines[0]?.sources ?? [];
  }

  async function loadForgotten(): Promise<void> {
    forgotten.value = (await api.invoke("memory.forgotten", {})).forgotten;
  }

  /** Remove the line; Dream and save_memory never write it back (until un-forgotten). */
  async function forget(line: string): Promise<void> {
    await api.invoke("memory.forget", { text: line });
    await Promise.all([loadDoc(), loadForgotten()]);
  }

  async function unforget(id: number): Promise<void> {
    await api.invoke("memory.unforget", { id });
    await loadForgotten();
  }

  return {
    doc, docError, versions, proposals, memories, total, soul, notes, todos, settings, forgotten,
    loadDoc, saveDoc, revert, loadProposals, decide, search, addMemory, updateMemory, deleteMemory,
    loadSoul, saveSoul, loadNotes, addNote, deleteNote, addTodo, completeTodo, deleteTodo,
    loadSettings, updateSettings, sourcesOf, loadForgotten, forget, unforget,
  };
});

/** Split a search box into words and `#tag` filters (tags as typed after '#'). */
export function parseQuery(raw: string): { words: string[]; tags: string[] } {
  const words: string[] = [];
  const tags: string[] = [];
  for (const part of raw.split(/\s+/).filter(Boolean)) {
    if (part.startsWith("#") && part.length > 1) tags.push(part.slice(1));
    else words.push(part);
  }
  return { words, tags };
}

/** "a, b c" → ["a", "b", "c"] (tags are separated by commas or spaces). */
export function parseTags(raw: string): string[] {
  return raw.split(/[\s,]+/).map((t) => t.trim()).filter(Boolean);
}
