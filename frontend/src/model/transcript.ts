/**
 * View model of a conversation: history messages and the live turn become one list of entries
 * (a user entry, then an assistant entry made of text, reasoning and tool parts in order).
 * Pure functions, tested without mounting anything.
 */
import type { AttachmentRef } from "@/model/attachments";
import type {
  ApprovalRequired,
  ErrorInfo,
  MentionOutput,
  MessageView,
  ToolCallEvent,
  ToolResultEvent,
  TurnDone,
} from "@/api/generated";

export type ToolStatus = "running" | "awaiting" | "ok" | "error" | "denied";
export type AssistantState = "streaming" | "done" | "failed" | "cancelled";
export type TextChannel = "text" | "reasoning";

export interface ToolView {
  callId: string;
  name: string;
  arguments: string;
  status: ToolStatus;
  output: string | null;
  truncated: boolean;
  durationMs: number | null;
  note?: string; // the latest progress or log line from an MCP server while the call runs
  lines?: string[]; // the recent progress and log lines of an MCP call (newest last, capped)
  sandbox?: string; // the Sandboxed mode: "sandboxed" or "not sandboxed: <why>"
}

/** How many MCP progress/log lines a tool card keeps (the newest ones). */
export const TOOL_LINES = 20;

export type Part =
  | { kind: "text"; id: string; text: string }
  | { kind: "reasoning"; id: string; text: string }
  | { kind: "steer"; id: string; text: string } // the user's steer, where the model got it
  | { kind: "tool"; id: string; tool: ToolView };

export interface UserEntry {
  kind: "user";
  key: string;
  text: string;
  mentions?: MentionOutput[];
  /** Stored message cursors shown by this entry (search opens a chat at one of them). */
  cursors?: number[];
  attachments?: AttachmentRef[];
}

export interface AssistantEntry {
  kind: "assistant";
  key: string;
  turnId: string;
  state: AssistantState;
  parts: Part[];
  error: ErrorInfo | null;
  cursors?: number[];
}

export type Entry = UserEntry | AssistantEntry;

export function newAssistant(turnId: string, state: AssistantState = "streaming"): AssistantEntry {
  return { kind: "assistant", key: `a-${turnId}`, turnId, state, parts: [], error: null };
}

/** Append streamed text to the last part of the same channel, or start a new part. */
export function appendText(entry: AssistantEntry, channel: TextChannel, text: string): void {
  if (!text) return;
  const last = entry.parts[entry.parts.length - 1];
  if (last && last.kind === channel) {
    last.text += text;
    return;
  }
  entry.parts.push({ kind: channel, id: `${channel}-${entry.parts.length}`, text });
}

/** Steer text reached the model here (between two steps of the turn). */
export function addSteer(entry: AssistantEntry, text: string): void {
  entry.parts.push({ kind: "steer", id: `steer-${entry.parts.length}`, text });
}

export function findTool(entry: AssistantEntry, callId: string): ToolView | undefined {
  for (const part of entry.parts) {
    if (part.kind === "tool" && part.tool.callId === callId) return part.tool;
  }
  return undefined;
}

export function addToolCall(entry: AssistantEntry, ev: Pick<ToolCallEvent, "call_id" | "name" | "arguments">): void {
  const existing = findTool(entry, ev.call_id);
  if (existing) {
    existing.name = ev.name;
    existing.arguments = ev.arguments;
    return;
  }
  entry.parts.push({
    kind: "tool",
    id: `tool-${ev.call_id}`,
    tool: {
      callId: ev.call_id,
      name: ev.name,
      arguments: ev.arguments,
      status: "running",
      output: null,
      truncated: false,
      durationMs: null,
    },
  });
}

export function markAwaiting(entry: AssistantEntry, ev: Pick<ApprovalRequired, "call_id" | "tool">): void {
  if (!findTool(entry, ev.call_id)) addToolCall(entry, { call_id: ev.call_id, name: ev.tool, arguments: "" });
  const tool = findTool(entry, ev.call_id);
  if (tool) tool.status = "awaiting";
}

export function markDenied(entry: AssistantEntry, callId: string): void {
  const tool = findTool(entry, callId);
  if (tool && tool.status === "awaiting") tool.status = "denied";
}

export function markApproved(entry: AssistantEntry, callId: string): void {
  const tool = findTool(entry, callId);
  if (tool && tool.status === "awaiting") tool.status = "running";
}

export function setToolResult(entry: AssistantEntry, ev: ToolResultEvent): void {
  let tool = findTool(entry, ev.call_id);
  if (!tool) {
    addToolCall(entry, { call_id: ev.call_id, name: ev.name, arguments: "" });
    tool = findTool(entry, ev.call_id) as ToolView;
  }
  tool.status = ev.denied || tool.status === "denied" ? "denied" : ev.ok ? "ok" : "error";
  tool.output = ev.output;
  tool.truncated = ev.truncated;
  tool.durationMs = ev.duration_ms;
  if (ev.sandbox) tool.sandbox = ev.sandbox;
}

/** An MCP progress/log notification: shown on the running card of that tool (the newest one). */
export function setToolNote(entry: AssistantEntry, toolName: string, note: string): void {
  for (let i = entry.parts.length - 1; i >= 0; i--) {
    const part = entry.parts[i];
    if (part.kind === "tool" && part.tool.name === toolName && part.tool.status === "running") {
      part.tool.note = note;
      part.tool.lines = [...(part.tool.lines ?? []), note].slice(-TOOL_LINES);
      return;
    }
  }
}

/** Finish a turn: tools still spinning stop, and a reply that never streamed is filled in. */
export function finishTurn(entry: AssistantEntry, state: Exclude<AssistantState, "streaming">, done?: TurnDone): void {
  entry.state = state;
  for (const part of entry.parts) {
    if (part.kind === "tool" && (part.tool.status === "running" || part.tool.status === "awaiting")) {
      part.tool.status = state === "done" ? "ok" : "error";
    }
  }
  if (done && done.text && !entry.parts.some((p) => p.kind === "text")) {
    appendText(entry, "text", done.text);
  }
}

/** Build entries from stored messages (cursor order). */
export function buildTranscript(messages: readonly MessageView[]): Entry[] {
  const entries: Entry[] = [];
  let current: AssistantEntry | null = null;
  for (const msg of messages) {
    if (msg.role === "user" && msg.steer && current && current.turnId === msg.turn_id) {
      addSteer(current, msg.content); // a steer stays inside its turn, where it was given
      current.cursors?.push(msg.cursor);
      continue;
    }
    if (msg.role === "user") {
      entries.push({
        kind: "user",
        key: `u-${msg.cursor}`,
        text: msg.content,
        mentions: msg.mentions,
        cursors: [msg.cursor],
        attachments: msg.attachments ?? [],
      });
      current = null;
      continue;
    }
    if (!current || current.turnId !== msg.turn_id) {
      current = newAssistant(msg.turn_id, "done");
      current.key = `a-${msg.turn_id}-${msg.cursor}`;
      current.cursors = [];
      entries.push(current);
    }
    current.cursors?.push(msg.cursor);
    if (msg.role === "assistant") {
      if (msg.content) appendText(current, "text", msg.content);
      for (const call of msg.tool_calls) {
        addToolCall(current, { call_id: call.id, name: call.name, arguments: call.arguments });
      }
    } else if (msg.tool_call_id) {
      const tool = findTool(current, msg.tool_call_id);
      if (tool) {
        tool.output = msg.content;
        // Rows stored before outcomes were kept read as done (the old behaviour).
        tool.status = msg.tool_outcome ?? "ok";
      }
    }
  }
  const stopped = new Set(messages.filter((m) => m.stopped).map((m) => m.turn_id));
  for (const entry of entries) {
    if (entry.kind === "assistant") finishTurn(entry, stopped.has(entry.turnId) ? "cancelled" : "done");
  }
  return entries;
}

/** What Copy puts on the clipboard for an entry: the user's text, or the answer's text parts. */
export function copyText(entry: Entry): string {
  if (entry.kind === "user") return entry.text;
  return entry.parts.flatMap((p) => (p.kind === "text" ? [p.text] : [])).join("\n\n");
}

/** Pretty-print a JSON arguments string; falls back to the raw text. */
export function prettyJson(raw: string): string {
  if (!raw.trim()) return "";
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}
