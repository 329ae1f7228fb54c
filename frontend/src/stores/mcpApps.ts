import { defineStore } from "pinia";
import { ref } from "vue";
import type { AppEvent, McpAppActivity, McpAppCallView } from "@/api/generated";
import { useApiStore } from "./api";

/** What an App did that its card shows (a tool call it made, a context update, a message). */
export type AppActivity = Pick<McpAppActivity, "kind" | "tool" | "ok" | "denied" | "text">;

const ACTIVITY_LINES = 20;

/**
 * MCP Apps per chat: which tool cards show an App (loaded with the chat, added live by the
 * `mcp_app_call` event) and what each App did (`mcp_app_activity`). Keyed by chat, then by the
 * model's call id (call ids repeat across chats).
 */
export const useMcpAppsStore = defineStore("mcpApps", () => {
  const api = useApiStore();
  const calls = ref<Record<string, Record<string, McpAppCallView>>>({});
  const activity = ref<Record<string, AppActivity[]>>({});
  let listening = false;

  function listen(): void {
    if (listening || !api.transport) return;
    listening = true;
    api.transport.onEvents((batch: AppEvent[]) => {
      for (const ev of batch) {
        if (ev.type === "mcp_app_call") {
          const chat = calls.value[ev.chat_id] ?? {};
          calls.value = {
            ...calls.value,
            [ev.chat_id]: { ...chat, [ev.call_id]: { call_id: ev.call_id, turn_id: ev.turn_id, server: ev.server, tool: ev.tool, uri: ev.uri } },
          };
        } else if (ev.type === "mcp_app_activity") {
          const key = `${ev.chat_id}\u0000${ev.call_id}`;
          activity.value = { ...activity.value, [key]: [...(activity.value[key] ?? []), ev].slice(-ACTIVITY_LINES) };
        }
      }
    });
  }

  /** The chat's App cards (on opening it; reopening renders each App again). */
  async function load(chatId: string): Promise<void> {
    listen();
    try {
      const list = await api.invoke("mcp.apps.calls", { chat_id: chatId });
      calls.value = { ...calls.value, [chatId]: Object.fromEntries(list.calls.map((c) => [c.call_id, c])) };
    } catch {
      // No MCP capability in this build: no App cards.
    }
  }

  function appFor(chatId: string | null, callId: string): McpAppCallView | null {
    return chatId ? (calls.value[chatId]?.[callId] ?? null) : null;
  }

  function activityOf(chatId: string, callId: string): AppActivity[] {
    return activity.value[`${chatId}\u0000${callId}`] ?? [];
  }

  return { calls, listen, load, appFor, activityOf };
});
