import { createPinia, setActivePinia } from "pinia";
import type { AppEvent, ChatSummary, MessageView, SettingsView } from "@/api/generated";
import { FakeTransport } from "@/api/fake";
import { useApiStore } from "@/stores/api";
import { useChatsStore } from "@/stores/chats";

export const NOW = "2026-11-30T09:00:00Z";

/** A complete settings view with defaults; tests override only what they are about. */
export function settingsView(overrides: Partial<SettingsView> = {}): SettingsView {
  return {
    theme: "system", language: "en", workspace: "/w", last_model: null, approval_mode: "ask_writes",
    tool_policies: {}, max_iterations: 20, allow_private_network: false, exec_env: [], sandbox_hidden: [], sandbox_readable: [], local_api: false,
    skill_evolution: false, vision_models: {}, model_prices: [], close_to_tray: true, quick_ask_hotkey: "",
    ...overrides,
  };
}

export function summary(id: string, title = `Chat ${id}`, updated_at = NOW): ChatSummary {
  return { id, title, created_at: NOW, updated_at, running: false, message_count: 0, last_activity: updated_at, preview: "", agent_id: "default" };
}

export function message(cursor: number, role: MessageView["role"], content: string, extra: Partial<MessageView> = {}): MessageView {
  return { cursor, turn_id: "t1", role, content, tool_calls: [], tool_call_id: null, name: null, created_at: NOW, mentions: [], attachments: [], stopped: false, steer: false, tool_outcome: null, siblings: [cursor], sibling_index: 0, ...extra };
}

/** A fresh Pinia with a FakeTransport installed; the chats store paints synchronously on flush. */
export function setup(fake = new FakeTransport()) {
  const pinia = createPinia();
  setActivePinia(pinia);
  useApiStore().use(fake);
  const frames: (() => void)[] = [];
  const chats = useChatsStore();
  chats.useFrameScheduler((cb) => frames.push(cb));
  const runFrames = () => {
    while (frames.length) frames.shift()?.();
  };
  return { pinia, fake, chats, frames, runFrames };
}

export function turn(chat_id: string, turn_id: string) {
  return {
    started: (user_text = "hi"): AppEvent => ({ type: "turn_started", chat_id, turn_id, provider_id: "p1", model: "m1", user_text }),
    delta: (text: string, channel: "text" | "reasoning" = "text"): AppEvent => ({ type: "delta", chat_id, turn_id, text, channel }),
    tool: (call_id: string, name = "read_file", args = '{"path":"a.txt"}'): AppEvent => ({ type: "tool_call", chat_id, turn_id, call_id, name, arguments: args }),
    result: (call_id: string, ok = true, output = "content"): AppEvent => ({
      type: "tool_result", chat_id, turn_id, call_id, name: "read_file", ok, output, truncated: false, duration_ms: 12, denied: false, sandbox: "",
    }),
    approval: (approval_id: string, call_id: string, can_always = true): AppEvent => ({
      type: "approval_required", chat_id, turn_id, approval_id, call_id, tool: "exec", title: "Run a command",
      detail: "ls -la", argv: ["ls", "-la"], can_always, summary: null,
    }),
    resolved: (approval_id: string, decision: "deny" | "once" | "always" | "cancelled"): AppEvent => ({
      type: "approval_resolved", chat_id, turn_id, approval_id, decision, answered_by: null,
    }),
    done: (text = ""): AppEvent => ({ type: "turn_done", chat_id, turn_id, duration_ms: 5, text, hit_limit: false }),
    failed: (message = "Invalid API key (401). Check the key in Settings → Providers."): AppEvent => ({
      type: "turn_failed", chat_id, turn_id, error: { code: "provider_error", message, retry_after_s: null, params: {}, key: "" },
    }),
    cancelled: (): AppEvent => ({ type: "turn_cancelled", chat_id, turn_id }),
  };
}
