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
 * SOUL.md, notes and todos, and the memory settings. Each panel loads what it shows.
 * `owner` picks whose MEMORY.md, versions, forgotten lines and explicit memories they are: null
 * the shared memory, else an agent with its own memory (issue 38). */
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
  const owner = ref<string | null>(null);

  /** Whose memory a request is about (added to every owner-scoped route; none: the shared one). */
  function whose(): { agent_id?: string } {
    return owner.value === null ? {} : { agent_id: owner.value };
  }

  function setOwner(agentId: string | null): void {
    if (owner.value === agentId) return;
    owner.value = agentId;
    doc.value = null; // never show one memory's text under another's name
    docError.value = "";
    versions.value = [];
    memories.value = [];
    total.value = 0;
    forgotten.value = [];
  }

  async function loadDoc(): Promise<void> {
    const asked = owner.value;
    docError.value = "";
    let loaded: MemoryDoc | null = null;
    let failed = "";
    try {
      loaded = await api.invoke("memory.get", whose());
    } catch (err) {
      failed = err instanceof Error ? err.message : String(err);
    }
    const listed = (await api.invoke("memory.versions", whose())).versions;
    if (owner.value !== asked) return; // another memory was picked meanwhile: its load shows
    doc.value = loaded;
    docError.value = failed;
    versions.value = listed;
  }

  async function saveDoc(text: string): Promise<void> {
    doc.value = await api.invoke("memory.save", { ...whose(), text, base_hash: doc.value?.hash ?? null });
    docError.value = "";
    versions.value = (await api.invoke("memory.versions", whose())).versions;
  }

  async function revert(versionId: number): Promise<void> {
    doc.value = await api.invoke("memory.revert", { ...whose(), version_id: versionId });
    docError.value = "";
    versions.value = (await api.invoke("memory.versions", whose())).versions;
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
    const asked = owner.value;
    const found = words.length || tags.length
      ? await api.invoke("memories.search", { ...whose(), words, tags })
      : await api.invoke("memories.list", whose());
    if (owner.value !== asked) return;
    memories.value = found.memories;
    total.value = found.total;
  }

  async function addMemory(content: string, tags: string[]): Promise<void> {
    await api.invoke("memories.add", { ...whose(), content, tags });
  }

  async function updateMemory(item: MemoryItem, content: string, tags: string[]): Promise<void> {
    await api.invoke("memories.update", {
      ...whose(), id: item.id, content, tags, expected_updated_at: item.updated_at,
    });
  }

  async function deleteMemory(item: MemoryItem): Promise<void> {
    await api.invoke("memories.delete", { ...whose(), id: item.id, expected_updated_at: item.updated_at });
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
    const found = await api.invoke("memory.why", { ...whose(), text: line });
    return found.lines.find((l) => l.line === line)?.sources ?? found.lines[0]?.sources ?? [];
  }

  async function loadForgotten(): Promise<void> {
    const asked = owner.value;
    const listed = (await api.invoke("memory.forgotten", whose())).forgotten;
    if (owner.value === asked) forgotten.value = listed;
  }

  /** Remove the line; Dream and save_memory never write it back (until un-forgotten). */
  async function forget(line: string): Promise<void> {
    await api.invoke("memory.forget", { ...whose(), text: line });
    await Promise.all([loadDoc(), loadForgotten()]);
  }

  async function unforget(id: number): Promise<void> {
    await api.invoke("memory.unforget", { ...whose(), id });
    await loadForgotten();
  }

  return {
    doc, docError, versions, proposals, memories, total, soul, notes, todos, settings, forgotten,
    owner, setOwner,
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
