/** How each pushed event (other than text deltas) changes the chats store's state. */
import type { Ref } from "vue";
import type { AppEvent, ChatSummary } from "@/api/generated";
import * as tx from "@/model/transcript";
import type { ChatRuntime, LiveTurn } from "./chats";

export type TurnEnd = Extract<AppEvent, { type: "turn_done" | "turn_failed" | "turn_cancelled" }>;

export interface ReducerDeps {
  summaries: Ref<Record<string, ChatSummary>>;
  currentId: Ref<string | null>;
  runtime(chatId: string): ChatRuntime;
  liveFor(chatId: string, turnId: string): LiveTurn | null;
  setRunning(chatId: string, running: boolean): void;
  upsert(summary: ChatSummary): void;
  forget(chatId: string): void;
  loadHistory(chatId: string): Promise<void>;
}

export function createEventReducer(deps: ReducerDeps): (ev: Exclude<AppEvent, { type: "delta" }>) => void {
  const { summaries, currentId, runtime, liveFor, setRunning, upsert, forget, loadHistory } = deps;

  function applyEvent(ev: Exclude<AppEvent, { type: "delta" }>): void {
    switch (ev.type) {
      case "turn_started": {
        const rt = runtime(ev.chat_id);
        rt.live = { turnId: ev.turn_id, userText: ev.user_text, entry: tx.newAssistant(ev.turn_id), model: ev.model, usage: null };
        rt.error = null;
        rt.approvals = [];
        setRunning(ev.chat_id, true);
        return;
      }
      case "tool_call": {
        const live = liveFor(ev.chat_id, ev.turn_id);
        if (live) tx.addToolCall(live.entry, ev);
        return;
      }
      case "approval_required": {
        const live = liveFor(ev.chat_id, ev.turn_id);
        if (live) tx.markAwaiting(live.entry, ev);
        const rt = runtime(ev.chat_id);
        if (!rt.approvals.some((a) => a.approval_id === ev.approval_id)) rt.approvals.push(ev);
        return;
      }
      case "approval_resolved": {
        const rt = runtime(ev.chat_id);
        const approval = rt.approvals.find((a) => a.approval_id === ev.approval_id);
        rt.approvals = rt.approvals.filter((a) => a.approval_id !== ev.approval_id);
        const live = liveFor(ev.chat_id, ev.turn_id);
        if (live && approval) {
          if (ev.decision === "deny" || ev.decision === "cancelled") tx.markDenied(live.entry, approval.call_id);
          else tx.markApproved(live.entry, approval.call_id);
        }
        return;
      }
      case "tool_result": {
        const live = liveFor(ev.chat_id, ev.turn_id);
        if (live) tx.setToolResult(live.entry, ev);
        return;
      }
      case "mcp_tool_progress": {
        const live = liveFor(ev.chat_id, ev.turn_id);
        const count = ev.progress !== null && ev.progress !== undefined ? `${ev.progress}${ev.total ? `/${ev.total}` : ""}` : "";
        if (live) tx.setToolNote(live.entry, ev.tool, [ev.message, count].filter(Boolean).join(" · "));
        return;
      }
      case "usage": {
        const live = liveFor(ev.chat_id, ev.turn_id);
        if (live) live.usage = ev;
        return;
      }
      case "turn_done":
      case "turn_failed":
      case "turn_cancelled":
        endTurn(ev);
        return;
      case "session_updated": {
        const known = summaries.value[ev.chat_id];
        if (known) {
          if (known.updated_at <= ev.updated_at) Object.assign(known, { title: ev.title, updated_at: ev.updated_at });
        } else {
          upsert({
            id: ev.chat_id, title: ev.title, created_at: ev.updated_at, updated_at: ev.updated_at, running: false,
            message_count: 0, last_activity: ev.updated_at, preview: "", agent_id: "default",
          });
        }
        return;
      }
      case "session_deleted":
        forget(ev.chat_id);
        return;
      case "context_left_out":
        runtime(ev.chat_id).contextLeftOut = true;
        return;
      default:
        return;
    }
  }

  function endTurn(ev: TurnEnd): void {
    const rt = runtime(ev.chat_id);
    const live = liveFor(ev.chat_id, ev.turn_id);
    if (!live) return;
    rt.approvals = rt.approvals.filter((a) => a.turn_id !== ev.turn_id);
    setRunning(ev.chat_id, false);
    if (ev.type === "turn_done") {
      tx.finishTurn(live.entry, "done", ev);
      if (rt.history !== null || currentId.value === ev.chat_id) void loadHistory(ev.chat_id);
      return;
    }
    if (ev.type === "turn_failed") {
      rt.error = ev.error;
      live.entry.error = ev.error;
    }
    tx.finishTurn(live.entry, ev.type === "turn_failed" ? "failed" : "cancelled");
    if (live.entry.parts.length === 0 && rt.fromComposer) {
      // Nothing was answered, so nothing was stored: the message goes back to the composer
      // (the error banner says why) instead of lingering as an unsent bubble.
      rt.returned = { text: live.userText, attachments: rt.sentAttachments ?? [] };
      rt.live = null;
      return;
    }
    // A stop stores what was answered: history shows it, marked stopped.
    if (ev.type === "turn_cancelled" && (rt.history !== null || currentId.value === ev.chat_id)) void loadHistory(ev.chat_id);
  }

  return applyEvent;
}
