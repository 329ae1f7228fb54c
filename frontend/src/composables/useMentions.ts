import { ref } from "vue";
import type { Ref } from "vue";
import type { MentionInput } from "@/api/generated";
import { useI18n } from "@/i18n";

export const MAX_MENTIONS = 8;

interface PickerHandle {
  onKey(ev: KeyboardEvent): boolean;
}

/**
 * @-mentions in the composer (SPEC S7.9): typing `@` at a word start opens the picker; a pick
 * replaces the typed `@query` with a chip. Selections are sent as structured metadata
 * (`ChatSend.mentions`), never appended to the text. Text typed as `@name` and left as text
 * still works: the backend recognises it.
 */
export function useMentions(text: Ref<string>, input: Ref<HTMLTextAreaElement | null>) {
  const { t } = useI18n();
  const open = ref(false);
  const query = ref("");
  const selected = ref<MentionInput[]>([]);
  const notice = ref("");
  const picker = ref<PickerHandle | null>(null);
  let start = -1; // index of the "@" being completed

  function pickerRef(el: unknown): void {
    picker.value = (el as PickerHandle | null) ?? null;
  }

  /** Look at the text before the caret: `@word` at a word start keeps the picker open. */
  function update(): void {
    const el = input.value;
    const caret = el?.selectionStart ?? text.value.length;
    const before = text.value.slice(0, caret);
    const match = /(^|\s)@([a-z0-9-]{0,64})$/i.exec(before);
    if (!match) {
      close();
      return;
    }
    start = caret - match[2].length - 1;
    query.value = match[2].toLowerCase();
    open.value = true;
  }

  function close(): void {
    open.value = false;
    query.value = "";
    start = -1;
  }

  function pick(mention: MentionInput): void {
    if (selected.value.length >= MAX_MENTIONS) {
      notice.value = t("skills.mention.max", { max: MAX_MENTIONS });
    } else if (!selected.value.some((m) => m.kind === mention.kind && m.name === mention.name)) {
      selected.value = [...selected.value, mention];
    }
    if (start >= 0) {
      const end = start + 1 + query.value.length;
      text.value = text.value.slice(0, start) + text.value.slice(end);
    }
    close();
    input.value?.focus();
  }

  function remove(index: number): void {
    selected.value = selected.value.filter((_, i) => i !== index);
    notice.value = "";
  }

  /** Keys go to the picker first while it is open; true = the composer must ignore the key. */
  function onKey(ev: KeyboardEvent): boolean {
    if (!open.value || !picker.value) return false;
    const handled = picker.value.onKey(ev);
    if (handled) ev.preventDefault();
    return handled;
  }

  /** The selections for the message being sent; the chips are cleared. */
  function take(): MentionInput[] {
    const out = selected.value;
    selected.value = [];
    notice.value = "";
    close();
    return out;
  }

  return { open, query, selected, notice, pickerRef, update, close, pick, remove, onKey, take };
}
