import { ref, watch } from "vue";
import type { Ref } from "vue";
import type { SearchGroup } from "@/api/generated";
import { errorMessage, useApiStore } from "@/stores/api";

const DEBOUNCE_MS = 200;

/** Full-text search over every chat's messages and text attachments (`chats.search`), grouped
 * per chat, debounced; a slower older answer never replaces a newer one. */
export function useChatSearch(query: Ref<string>) {
  const api = useApiStore();
  const groups = ref<SearchGroup[]>([]);
  const searching = ref(false);
  const error = ref("");
  let timer: ReturnType<typeof setTimeout> | null = null;
  let generation = 0;

  async function run(q: string, mine: number): Promise<void> {
    try {
      const result = await api.invoke("chats.search", { query: q, limit: 30 });
      if (mine === generation) groups.value = result.groups;
    } catch (err) {
      if (mine === generation) error.value = errorMessage(err);
    } finally {
      if (mine === generation) searching.value = false;
    }
  }

  watch(query, (raw) => {
    const q = raw.trim();
    const mine = ++generation;
    if (timer) clearTimeout(timer);
    error.value = "";
    if (!q) {
      groups.value = [];
      searching.value = false;
      return;
    }
    searching.value = true;
    timer = setTimeout(() => void run(q.slice(0, 200), mine), DEBOUNCE_MS);
  });

  return { groups, searching, error };
}
