import { defineStore } from "pinia";
import { ref } from "vue";
import type { AppEvent } from "@/api/generated";

type DesktopCommand = Extract<AppEvent, { type: "desktop_command" }>;

/**
 * Requests the desktop shell sends to THIS window (`desktop_command` events reach only the
 * window they are meant for). Views watch the counters, so a repeated request still fires.
 */
export const useDesktopStore = defineStore("desktop", () => {
  /** The Quick Ask window was shown (tray, hotkey, `cashcode desktop --quick-ask TEXT`). */
  const quickOpened = ref<{ n: number; text: string | null }>({ n: 0, text: null });
  /** The main window should show this chat ("Continue in CashCode", a notification, the tray). */
  const openChat = ref<{ n: number; chatId: string | null }>({ n: 0, chatId: null });
  /** The main window should show the Inbox, on this item when set (the tray, a notification). */
  const openInbox = ref<{ n: number; itemId: string | null }>({ n: 0, itemId: null });
  /** The chat the Quick Ask window shows; a new question starts a new one. */
  const quickChatId = ref<string | null>(null);

  function apply(command: DesktopCommand): void {
    if (command.action === "quick_opened") {
      quickOpened.value = { n: quickOpened.value.n + 1, text: command.text ?? null };
    } else if (command.action === "open_chat" && command.open_chat_id) {
      openChat.value = { n: openChat.value.n + 1, chatId: command.open_chat_id };
    } else if (command.action === "open_inbox") {
      openInbox.value = { n: openInbox.value.n + 1, itemId: command.open_item_id ?? null };
    }
  }

  function applyBatch(batch: readonly AppEvent[]): void {
    for (const ev of batch) if (ev.type === "desktop_command") apply(ev);
  }

  return { quickOpened, openChat, openInbox, quickChatId, applyBatch };
});
