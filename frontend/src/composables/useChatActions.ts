import { ref } from "vue";
import { useRouter } from "vue-router";
import { errorMessage } from "@/stores/api";
import { useChatsStore } from "@/stores/chats";

/** Chat-level actions shared by the sidebar, the shortcuts and the empty state. */
export function useChatActions() {
  const chats = useChatsStore();
  const router = useRouter();
  const error = ref("");

  async function newChat(): Promise<void> {
    error.value = "";
    const creation = chats.createNew();
    // The empty chat shows at once, before the bridge answers: whatever is typed and sent from
    // now on belongs to the new chat (ChatView waits for it), never to the chat shown before.
    const shown = router.push({ name: "home" });
    try {
      const chat = await creation;
      await shown;
      if (router.currentRoute.value.name === "home") await router.replace({ name: "chat", params: { id: chat.id } });
    } catch (err) {
      error.value = errorMessage(err);
    }
  }

  async function rename(chatId: string, title: string): Promise<void> {
    error.value = "";
    try {
      await chats.rename(chatId, title);
    } catch (err) {
      error.value = errorMessage(err);
    }
  }

  async function remove(chatId: string): Promise<boolean> {
    error.value = "";
    const wasCurrent = chats.currentId === chatId;
    try {
      await chats.remove(chatId);
      if (wasCurrent) await router.push({ name: "home" });
      return true;
    } catch (err) {
      error.value = errorMessage(err);
      return false;
    }
  }

  return { error, newChat, rename, remove };
}
