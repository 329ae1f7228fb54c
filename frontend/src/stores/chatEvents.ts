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
  /** Steer text reached the model (the waiting steers it joined are given). */
  steered(chatId: string, text: string): void;
  /** After a turn's end: the chat's queued messages go on (done) or come back (stop, failure). */
  afterTurn(chatId: string, end: TurnEnd["type"]): void;
  /** Re-read one chat's list entry (a turn of a chat this window does not show). */
  refreshSummary(chatId: string): Promise<void>;
}

export function createEventReducer(deps: ReducerDeps): (ev: Exclude<AppEvent, { type: "delta" }>) => void {
  const { summaries, currentId, runtime, liveFor, setRunning, upsert, forget, loadHistory, steered, afterTurn, refreshSummary } = deps;

  function applyEvent(ev: Exclude<AppEvent, { type: "delta" }>): void {
    switch (ev.type) {
      case "turn_started": {
        const rt = runtime(ev.chat_id);
        rt.live = { turnId: ev.turn_id, userText: ev.user_text, entry: tx.newAssistant(ev.turn_id), model: ev.model, usage: null };
        rt.error = null;
        rt.approvals = [];
        rt.closedElsewhere = null;
        setRunning(ev.chat_id, true);
        // A turn this window did not start (a scheduled run, "Run now", Quick Ask, the CLI):
        // its chat joins the list now, not at the next click or restart (issue 41).
        if (!summaries.value[ev.chat_id]) void refreshSummary(ev.chat_id);
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
        rt.closedElsewhere = null;
        return;
      }
      case "approval_resolved": {
        const rt = runtime(ev.chat_id);
        const approval = rt.approvals.find((a) => a.approval_id === ev.approval_id);
        rt.approvals = rt.approvals.filter((a) => a.approval_id !== ev.approval_id);
        // Still listed here means this window did not answer it (its own answer removes it at
        // once): the Inbox, the CLI or another window did. The dialog closes; say who answered.
        if (approval && ev.decision !== "cancelled") rt.closedElsewhere = { tool: approval.tool, decision: ev.decision, by: ev.answered_by };
        const live = liveFor(ev.chat_id, ev.turn_id);
        if (live && approval) {
          if (ev.decision === "deny" || ev.decision === "cancelled") tx.markDenied(live.entry, approval.call_id);
          else tx.markApproved(live.entry, approval.call_id);
        }
        return;
      }
      case "turn_steered": {
        const live = liveFor(ev.chat_id, ev.turn_id);
        if (live) tx.addSteer(live.entry, ev.text);
        steered(ev.chat_id, ev.text);
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
        afterTurn(ev.chat_id, ev.type);
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
    // A chat whose history is not loaded here: its list entry (count, preview, time) is re-read;
    // a shown chat's is, with its history, below.
    if (rt.history === null && currentId.value !== ev.chat_id) void refreshSummary(ev.chat_id);
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
