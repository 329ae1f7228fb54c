import { defineStore } from "pinia";
import { computed, ref } from "vue";

/**
 * The modal dialogs that want to be open, in the order they asked (issue 41: dialogs do not
 * stack). Only the first is shown; the others wait their turn, so one backdrop and one focus
 * trap are on screen at a time (composables/useFocusTrap.ts `useDialog`).
 */
export const useDialogsStore = defineStore("dialogs", () => {
  const waiting = ref<number[]>([]);
  let next = 0;
  const current = computed(() => waiting.value[0] ?? null);

  function enter(): number {
    next += 1;
    waiting.value = [...waiting.value, next];
    return next;
  }

  function leave(id: number): void {
    waiting.value = waiting.value.filter((x) => x !== id);
  }

  return { current, enter, leave };
});
