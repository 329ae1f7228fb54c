import { computed, ref, watch } from "vue";
import type { Ref } from "vue";
import type { SummaryItem } from "@/api/generated";
import { dividerKey } from "@/model/diffLines";
import type { Entry } from "@/model/transcript";
import { useApiStore } from "@/stores/api";

/** The latest consolidation summary of the shown path and the transcript entry its divider goes
 * before. Reloaded when the chat or the shown branch changes and after each turn (consolidation
 * runs after turn_done). */
export function useChatSummary(chatId: Ref<string | null>, entries: Ref<Entry[]>, running: Ref<boolean>) {
  const api = useApiStore();
  const summary = ref<SummaryItem | null>(null);
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function load(id: string | null, retries = 0): Promise<void> {
    if (timer) clearTimeout(timer);
    if (!id) {
      summary.value = null;
      return;
    }
    try {
      const list = await api.invoke("memory.summaries", { chat_id: id });
      if (id !== chatId.value) return;
      summary.value = list.latest;
      // A consolidation started by the last turn: look again shortly (bounded).
      if (list.running && retries < 30) timer = setTimeout(() => void load(id, retries + 1), 2000);
    } catch {
      summary.value = null; // the divider is a hint; the chat itself shows its own errors
    }
  }

  watch(chatId, (id) => void load(id), { immediate: true });
  watch(running, (now, before) => {
    if (before && !now) void load(chatId.value);
  });
  // Another branch shown (its last entry changes): summaries belong to the path they folded.
  watch(
    () => entries.value.at(-1)?.key,
    (now, before) => {
      if (before !== undefined && now !== before && !running.value) void load(chatId.value);
    },
  );

  const key = computed(() =>
    summary.value ? dividerKey(entries.value.map((e) => e.key), summary.value.keep_from_cursor) : null,
  );
  return { summary, key };
}
