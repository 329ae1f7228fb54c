import { ref } from "vue";
import { useRouter } from "vue-router";
import { errorMessage } from "@/stores/api";
import { useAgentsStore } from "@/stores/agents";
import { useChatsStore } from "@/stores/chats";

/** Chat-level actions shared by the sidebar, the shortcuts and the empty state. */
export function useChatActions() {
  const chats = useChatsStore();
  const agents = useAgentsStore();
  const router = useRouter();
  const error = ref("");

  /** An empty chat nobody has touched (no message, no title, nothing sending), newest first:
   * New chat opens it again rather than piling up "New chat · No messages" rows. */
  function untouchedChat(agentId: string): string | null {
    const empty = Object.values(chats.summaries)
      .filter((c) => (c.agent_id ?? "default") === agentId && c.message_count === 0 && !c.title && !chats.isRunning(c.id) && chats.entries(c.id).length === 0)
      .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    return empty[0]?.id ?? null;
  }

  async function newChat(): Promise<void> {
    error.value = "";
    await agents.ready(); // a new chat starts with the last used agent (its picker changes it)
    const agentId = agents.lastUsed;
    const reuse = chats.creatingChat() === null ? untouchedChat(agentId) : null;
    if (reuse) {
      await router.push({ name: "chat", params: { id: reuse } });
      return;
    }
    const creation = chats.createNew(agentId);
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
