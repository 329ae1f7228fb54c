// The chats store: every chat's list entry, history and live turn, and the actions on them. The
// event reducer (chatEvents.ts) and frame batching (frame.ts) are split out; what remains shares
// this state (runtimes, summaries, the queue), hence its length.
import { defineStore } from "pinia";
import { computed, ref } from "vue";
import type { AttachmentRef } from "@/model/attachments";
import type {
  AppEvent,
  ApprovalRequired,
  ChatSummary,
  ErrorInfo,
  MentionInput,
  MessageView,
  ModelRef,
  UsageEvent,
  ViewedVersion,
} from "@/api/generated";
import * as tx from "@/model/transcript";
import type { AssistantEntry, Entry, TextChannel } from "@/model/transcript";
import { ApiError } from "@/api/transport";
import { errorCode, errorMessage, useApiStore } from "./api";
import { createEventReducer } from "./chatEvents";
import { afterBatch, afterPaint, createFrameBatcher } from "./frame";
import type { FrameScheduler } from "./frame";

export interface LiveTurn {
  turnId: string;
  userText: string;
  entry: AssistantEntry;
  model: string;
  usage: UsageEvent | null;
}

/** Everything the UI knows about one chat beyond its summary. */
export interface ChatRuntime {
  history: MessageView[] | null;
  hasMore: boolean;
  loading: boolean;
  live: LiveTurn | null;
  approvals: ApprovalRequired[];
  error: ErrorInfo | null;
  running: boolean;
  sending: boolean;
  /** Files of the message being sent, shown with the live user entry until history has it. */
  sentAttachments?: AttachmentRef[];
  /** The live turn answers a stored user message again (regenerate): no live user entry. */
  answerOnly?: boolean;
  /** A message that did not get through (refused send, a turn failed or stopped before any
   * answer): the composer takes it back, so nothing typed is lost. */
  returned?: ReturnedDraft | null;
  /** The shown approval was answered elsewhere (the Inbox, the CLI, another window): its
   * dialog closed and the view says by which surface (issue 35). */
  closedElsewhere?: ClosedElsewhere | null;
  /** The last turn's context left older messages out (not summarised yet): the view says so. */
  contextLeftOut?: boolean;
  /** The live turn was typed in the composer (not an edit or regenerate). */
  fromComposer?: boolean;
  /** Typed while the turn runs (issue 35): queue items wait for its end, steer items were
   * sent (chat.steer) and wait for `turn_steered`; Stop or a failure gives them back. */
  waiting?: WaitingMessage[];
  /** `history` shows another version than the chat's current one (a search hit opened it);
   * the stored current version is unchanged until the user makes this one current. */
  viewing?: ViewedVersion | null;
}

export interface ClosedElsewhere {
  tool: string;
  decision: "deny" | "once" | "always";
  by: Extract<AppEvent, { type: "approval_resolved" }>["answered_by"];
}

export interface ReturnedDraft {
  text: string;
  attachments: AttachmentRef[];
}

/** A message typed while a turn runs: this window's queue (decision 427). */
export interface WaitingMessage {
  id: number;
  kind: "queue" | "steer";
  text: string;
  mentions: MentionInput[];
  attachments: AttachmentRef[];
  model: ModelRef | null;
}

const LIST_PAGE = 100;
const HISTORY_PAGE = 200;
const FIRST_PAGE = 50;
/** How many chats keep their loaded history when another chat is opened. */
export const KEPT_HISTORIES = 8;

type Pending = { turnId: string; channel: TextChannel; text: string }[];

function blank(): ChatRuntime {
  return { history: null, hasMore: false, loading: false, live: null, approvals: [], error: null, running: false, sending: false };
}

/** A failed call as the banner's ErrorInfo; the banner words it (its key, or provider details). */
export function toErrorInfo(err: unknown): ErrorInfo {
  if (!(err instanceof ApiError)) return { code: errorCode(err), message: errorMessage(err, "en"), retry_after_s: null, params: {}, key: "" };
  const params = err.key ? err.params : err.details;
  return { code: err.code, message: err.message, retry_after_s: null, params, key: err.key };
}

export const useChatsStore = defineStore("chats", () => {
  const api = useApiStore();
  const summaries = ref<Record<string, ChatSummary>>({});
  const runtimes = ref<Record<string, ChatRuntime>>({});
  const currentId = ref<string | null>(null);
  let frame: FrameScheduler = afterBatch;
  const pending = new Map<string, Pending>();
  const batcher = createFrameBatcher(flushAll, () => frame);
  const transcripts = new WeakMap<MessageView[], Entry[]>();

  // The same order as `chats.list` pages (updated_at newest first, ties by id); plain string
  // comparison, since ISO times and ids sort by code unit and localeCompare is far slower.
  // Each summary's keys are read once (one reactive read each, which is also what the order
  // depends on), then sorted as plain values: a page arriving while the list is scrolled
  // re-sorts thousands of chats, and comparing through the reactive proxies cost ~n log n reads.
  const list = computed(() => {
    const keyed = Object.values(summaries.value).map((s) => ({ at: s.updated_at, id: s.id, s }));
    keyed.sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.at < b.at ? 1 : -1));
    return keyed.map((k) => k.s);
  });
  /** Keyset of the next `chats.list` page; null once the last page is loaded. */
  const listNext = ref<string | null>(null);
  const listLoading = ref(false);
  let pagesLoaded = 0;
  const current = computed(() => (currentId.value ? (summaries.value[currentId.value] ?? null) : null));

  function runtime(chatId: string): ChatRuntime {
    if (!runtimes.value[chatId]) runtimes.value[chatId] = blank();
    return runtimes.value[chatId];
  }

  /** Merge a summary; an older snapshot never overwrites a newer pushed update. */
  function upsert(summary: ChatSummary): void {
    const known = summaries.value[summary.id];
    if (known && known.updated_at > summary.updated_at) return;
    // Read, not create, the runtime: listing 10,000 chats must not make 10,000 runtimes.
    const running = runtimes.value[summary.id]?.running ?? false;
    summaries.value[summary.id] = { ...summary, running: summary.running || running };
  }

  function forget(chatId: string): void {
    delete summaries.value[chatId];
    delete runtimes.value[chatId];
    pending.delete(chatId);
    if (currentId.value === chatId) currentId.value = null;
  }

  function setRunning(chatId: string, running: boolean): void {
    runtime(chatId).running = running;
    const s = summaries.value[chatId];
    if (s) s.running = running;
  }

  function liveFor(chatId: string, turnId: string): LiveTurn | null {
    // No turn: a question asked outside one (an MCP App's own tool call) is the chat's dialog
    // and the App's card, never a new assistant entry that would wait forever.
    if (!turnId) return null;
    const rt = runtime(chatId);
    if (rt.live?.turnId === turnId) return rt.live;
    if (rt.live && rt.live.entry.state === "streaming") return null; // stale event of an older turn
    rt.live = { turnId, userText: "", entry: tx.newAssistant(turnId), model: "", usage: null };
    return rt.live;
  }

  // ---- streaming: deltas are buffered and applied once per batch -----------------------------

  function queueDelta(chatId: string, turnId: string, channel: TextChannel, text: string): void {
    let queue = pending.get(chatId);
    if (!queue) pending.set(chatId, (queue = []));
    const last = queue[queue.length - 1];
    if (last && last.turnId === turnId && last.channel === channel) last.text += text;
    else queue.push({ turnId, channel, text });
    batcher.request();
  }

  function flushChat(chatId: string): void {
    const queue = pending.get(chatId);
    if (!queue) return;
    pending.delete(chatId);
    for (const chunk of queue) {
      const live = liveFor(chatId, chunk.turnId);
      if (live) tx.appendText(live.entry, chunk.channel, chunk.text);
    }
  }

  function flushAll(): void {
    for (const chatId of [...pending.keys()]) flushChat(chatId);
  }

  // ---- events ------------------------------------------------------------------------------

  function applyBatch(batch: readonly AppEvent[]): void {
    for (const ev of batch) {
      if (ev.type === "delta") {
        queueDelta(ev.chat_id, ev.turn_id, ev.channel, ev.text);
        continue;
      }
      if ("chat_id" in ev) flushChat(ev.chat_id); // keep text and tool events in order
      applyEvent(ev);
    }
  }

  const applyEvent = createEventReducer({
    summaries, currentId, runtime, liveFor, setRunning, upsert, forget, loadHistory, steered, afterTurn, refreshSummary,
  });

  const refreshing = new Set<string>();
  /** One chat's list entry, read again (one request per chat at a time; a chat deleted
   * meanwhile — `forget` drops its runtime — stays out of the list). */
  async function refreshSummary(chatId: string): Promise<void> {
    if (refreshing.has(chatId)) return;
    refreshing.add(chatId);
    try {
      const detail = await api.invoke("chats.get", { chat_id: chatId, limit: 1 });
      if (runtimes.value[chatId]) upsert(detail.chat);
    } catch {
      // gone or unreadable: the list keeps what it had
    } finally {
      refreshing.delete(chatId);
    }
  }

  // ---- snapshots and actions -----------------------------------------------------------------

  /** The first page of the chat list (the sidebar loads more as it is scrolled). */
  async function loadList(): Promise<void> {
    const page = await api.invoke("chats.list", { limit: LIST_PAGE });
    for (const chat of page.chats) upsert(chat);
    // A refresh (resync after an outage, an import) must not send a list that was scrolled
    // further back to page two again: only the first load sets where the next page starts.
    if (pagesLoaded <= 1) listNext.value = page.next_before ?? null;
    pagesLoaded = Math.max(pagesLoaded, 1);
  }

  /** The next page, if any; one request at a time. */
  async function loadMore(): Promise<void> {
    const before = listNext.value;
    if (!before || listLoading.value) return;
    listLoading.value = true;
    try {
      const page = await api.invoke("chats.list", { limit: LIST_PAGE, before });
      for (const chat of page.chats) upsert(chat);
      if (listNext.value === before) {
        listNext.value = page.next_before ?? null;
        pagesLoaded += 1;
      }
    } finally {
      listLoading.value = false;
    }
  }

  /** Chats whose title contains `text`, loaded or not (the sidebar's title filter). */
  async function loadMatching(text: string): Promise<void> {
    const page = await api.invoke("chats.list", { limit: LIST_PAGE, title: text.slice(0, 200) });
    for (const chat of page.chats) upsert(chat);
  }

  // The latest history read of each chat: an older read answering after a newer one (a queued
  // turn that ended while the previous turn's read was still on its way) must not put back a
  // history without the newer turn — whose live entry the newer read already let go.
  const historyReads = new Map<string, number>();

  async function loadHistory(chatId: string): Promise<void> {
    const rt = runtime(chatId);
    const read = (historyReads.get(chatId) ?? 0) + 1;
    historyReads.set(chatId, read);
    // Opening: the newest FIRST_PAGE messages paint first and the rest of a full page follows
    // right after that paint (a 100,000-message chat opened in 117 ms with 200 at once,
    // bench/README.md). A re-read of a shown chat (after a turn) takes the full page at once, so
    // what is on screen never shrinks for a frame.
    const opening = rt.history === null;
    rt.loading = true;
    try {
      const detail = await api.invoke("chats.get", { chat_id: chatId, limit: opening ? FIRST_PAGE : HISTORY_PAGE });
      if (historyReads.get(chatId) !== read) return; // a newer read of this chat is on its way
      upsert(detail.chat);
      rt.history = detail.messages;
      rt.hasMore = detail.has_more;
      rt.viewing = null;
      const live = rt.live;
      // A finished or stopped turn that history now holds (a stop stores the partial answer).
      if (live && live.entry.state !== "streaming" && detail.messages.some((m) => m.turn_id === live.turnId)) rt.live = null;
    } catch (err) {
      if (historyReads.get(chatId) === read) rt.error = toErrorInfo(err);
    } finally {
      if (historyReads.get(chatId) === read) rt.loading = false;
    }
    if (opening && rt.hasMore) afterPaint(() => void fillFirstPage(chatId));
  }

  async function fillFirstPage(chatId: string): Promise<void> {
    const shown = runtimes.value[chatId]?.history?.length ?? HISTORY_PAGE;
    if (shown < HISTORY_PAGE) await loadOlder(chatId, HISTORY_PAGE - shown);
  }

  const loadingOlder = new Map<string, Promise<void>>();

  /** The page before the oldest loaded message; one request per chat at a time. */
  function loadOlder(chatId: string, limit = HISTORY_PAGE): Promise<void> {
    const inFlight = loadingOlder.get(chatId);
    if (inFlight) return inFlight;
    const rt = runtime(chatId);
    const first = rt.history?.[0];
    if (!first || !rt.hasMore) return Promise.resolve();
    const loading = (async () => {
      try {
        const detail = await api.invoke("chats.get", { chat_id: chatId, before_cursor: first.cursor, limit });
        if (rt.history?.[0] !== first) return; // reloaded or switched meanwhile: this page is stale
        rt.history = [...detail.messages, ...rt.history];
        rt.hasMore = detail.has_more;
      } finally {
        loadingOlder.delete(chatId);
      }
    })();
    loadingOlder.set(chatId, loading);
    return loading;
  }

  /** Make sure the message at `cursor` is loaded (search opens a chat at a hit). */
  async function reveal(chatId: string, cursor: number): Promise<boolean> {
    const rt = runtime(chatId);
    if (rt.history === null) await loadHistory(chatId);
    // A hit on another version: show that version without making it current (the view says
    // so and offers "Make current"); for a hit on the current path this loads that path.
    if (!isRunning(chatId) && !rt.history?.some((m) => m.cursor === cursor)) await viewThrough(chatId, cursor);
    // Bounded: each page goes back up to 200 messages.
    for (let pages = 0; pages < 500; pages++) {
      const first = rt.history?.[0];
      if (!first || first.cursor <= cursor || !rt.hasMore) break;
      await loadOlder(chatId);
    }
    return Boolean(rt.history?.some((m) => m.cursor === cursor));
  }

  // Loaded histories are a cache: only the chats opened last keep theirs, so a day of many chats
  // does not keep every transcript in the page (bench/bench_soak_window.py). A chat whose history
  // was dropped loads it again when it is opened; running chats keep theirs.
  const recentlyOpened: string[] = [];

  function dropOldHistories(chatId: string): void {
    const at = recentlyOpened.indexOf(chatId);
    if (at >= 0) recentlyOpened.splice(at, 1);
    recentlyOpened.unshift(chatId);
    for (const id of recentlyOpened.splice(KEPT_HISTORIES)) {
      const rt = runtimes.value[id];
      if (!rt || rt.running || rt.sending || rt.loading) {
        recentlyOpened.push(id); // still busy: try again on a later open
        continue;
      }
      rt.history = null;
      rt.hasMore = false;
      if (rt.live?.entry.state !== "streaming") rt.live = null;
    }
  }

  function open(chatId: string | null): void {
    currentId.value = chatId;
    if (!chatId) return;
    dropOldHistories(chatId);
    const rt = runtime(chatId);
    if (rt.history === null && !rt.loading) void loadHistory(chatId);
  }

  function entries(chatId: string): Entry[] {
    const rt = runtimes.value[chatId];
    if (!rt) return [];
    let base: Entry[] = [];
    if (rt.history) {
      const raw = rt.history;
      base = transcripts.get(raw) ?? tx.buildTranscript(raw);
      transcripts.set(raw, base);
    }
    const live = rt.live;
    if (!live || rt.history?.some((m) => m.turn_id === live.turnId)) return base;
    const files = rt.sentAttachments ?? [];
    const user: Entry[] =
      !rt.answerOnly && (live.userText || files.length) ? [{ kind: "user", key: `lu-${live.turnId}`, text: live.userText, attachments: files }] : [];
    return [...base, ...user, live.entry];
  }

  async function create(title?: string, agentId?: string | null): Promise<ChatSummary> {
    const chat = await api.invoke("chats.create", { ...(title ? { title } : {}), ...(agentId ? { agent_id: agentId } : {}) });
    upsert(chat);
    runtime(chat.id).history ??= [];
    return chat;
  }

  // "New chat" shows the empty chat before the bridge has created it; a message sent in that
  // gap must go to this chat (not the one on screen before, nor a second new one).
  let creating: Promise<ChatSummary> | null = null;

  /** Create the chat "New chat" opens; `creatingChat()` hands it to a send made meanwhile. */
  function createNew(agentId?: string | null): Promise<ChatSummary> {
    const made = create(undefined, agentId);
    creating = made;
    const settle = () => {
      if (creating === made) creating = null;
    };
    made.then(settle, settle);
    return made;
  }

  function creatingChat(): Promise<ChatSummary> | null {
    return creating;
  }

  /** The chat now belongs to `agentId` (the agents store asked the app first). */
  function setAgent(chatId: string, agentId: string): void {
    const chat = summaries.value[chatId];
    if (chat) upsert({ ...chat, agent_id: agentId });
  }

  async function rename(chatId: string, title: string): Promise<void> {
    upsert(await api.invoke("chats.rename", { chat_id: chatId, title }));
  }

  async function remove(chatId: string): Promise<void> {
    await api.invoke("chats.delete", { chat_id: chatId });
    forget(chatId);
  }

  async function guarded(chatId: string, action: () => Promise<unknown>): Promise<boolean> {
    const rt = runtime(chatId);
    try {
      await action();
      return true;
    } catch (err) {
      rt.error = toErrorInfo(err);
      return false;
    }
  }

  async function send(
    chatId: string,
    text: string,
    model: ModelRef | null,
    mentions: MentionInput[] = [],
    attachments: AttachmentRef[] = [],
  ): Promise<boolean> {
    const rt = runtime(chatId);
    rt.error = null;
    rt.sending = true;
    rt.sentAttachments = attachments;
    rt.answerOnly = false;
    rt.fromComposer = true;
    try {
      const payload = {
        chat_id: chatId,
        text,
        model,
        ...(mentions.length ? { mentions } : {}),
        ...(attachments.length ? { attachments } : {}),
      };
      const ok = await guarded(chatId, () => api.invoke("chat.send", payload));
      if (!ok) rt.returned = { text, attachments };
      return ok;
    } finally {
      rt.sending = false;
    }
  }

  /** Start a branch: the shown path is cut where the new turn attaches (restored when the
   * request is refused); the finished turn reloads the chat on its new branch. */
  async function branchTurn(chatId: string, cursor: number, answerOnly: boolean, start: () => Promise<unknown>): Promise<boolean> {
    const rt = runtime(chatId);
    const before = rt.history;
    const at = before?.findIndex((m) => m.cursor === cursor) ?? -1;
    rt.error = null;
    rt.answerOnly = answerOnly;
    rt.fromComposer = false;
    rt.sentAttachments = answerOnly || at < 0 ? [] : (before?.[at].attachments ?? []);
    rt.sending = true;
    if (before && at >= 0) rt.history = before.slice(0, at);
    try {
      const ok = await guarded(chatId, start);
      if (!ok) rt.history = before;
      return ok;
    } finally {
      rt.sending = false;
    }
  }

  function edit(chatId: string, cursor: number, text: string, model: ModelRef | null): Promise<boolean> {
    return branchTurn(chatId, cursor, false, () => api.invoke("chat.edit", { chat_id: chatId, cursor, text, model }));
  }

  function regenerate(chatId: string, cursor: number, model: ModelRef | null): Promise<boolean> {
    return branchTurn(chatId, cursor, true, () => api.invoke("chat.regenerate", { chat_id: chatId, cursor, model }));
  }

  /** Show the version of a message with cursor `cursor` (and the newest path below it). */
  async function switchBranch(chatId: string, cursor: number): Promise<boolean> {
    const rt = runtime(chatId);
    return guarded(chatId, async () => {
      const detail = await api.invoke("chats.switch_branch", { chat_id: chatId, cursor });
      upsert(detail.chat);
      rt.history = detail.messages;
      rt.hasMore = detail.has_more;
      rt.viewing = null;
      if (rt.live && rt.live.entry.state !== "streaming") rt.live = null;
    });
  }

  /** Show the path through message `cursor` without storing it as current (`chats.get`
   * `through`); `viewing` says which version it is when it is not the current one. */
  async function viewThrough(chatId: string, cursor: number): Promise<boolean> {
    const rt = runtime(chatId);
    return guarded(chatId, async () => {
      const detail = await api.invoke("chats.get", { chat_id: chatId, through: cursor, limit: HISTORY_PAGE });
      upsert(detail.chat);
      rt.history = detail.messages;
      rt.hasMore = detail.has_more;
      rt.viewing = detail.viewing ?? null;
    });
  }

  /** The viewed version becomes the chat's current one. */
  function makeCurrent(chatId: string): Promise<boolean> {
    const leaf = runtimes.value[chatId]?.viewing?.leaf;
    return leaf === undefined ? Promise.resolve(false) : switchBranch(chatId, leaf);
  }

  /** Leave the viewed version: the chat's current version again. */
  async function backToCurrent(chatId: string): Promise<void> {
    const rt = runtime(chatId);
    if (!rt.viewing) return;
    await loadHistory(chatId);
  }

  const cancel = (chatId: string) => guarded(chatId, () => api.invoke("chat.cancel", { chat_id: chatId }));

  // ---- steer and queue (issue 35) ------------------------------------------------------------

  let waitingIds = 0;

  function waitingOf(chatId: string): WaitingMessage[] {
    const rt = runtime(chatId);
    if (!rt.waiting) rt.waiting = [];
    return rt.waiting;
  }

  /** Sent as the chat's next turn when the running one ends (in order). */
  function queue(chatId: string, text: string, model: ModelRef | null, mentions: MentionInput[] = [], attachments: AttachmentRef[] = []): void {
    waitingOf(chatId).push({ id: ++waitingIds, kind: "queue", text, mentions, attachments, model });
  }

  /** Given to the running turn's model at its next step; shown here until it is given. A turn
   * that ended meanwhile gets it as its next message instead (nothing typed is lost). */
  async function steer(chatId: string, text: string, model: ModelRef | null): Promise<void> {
    const item: WaitingMessage = { id: ++waitingIds, kind: "steer", text, mentions: [], attachments: [], model };
    waitingOf(chatId).push(item);
    try {
      await api.invoke("chat.steer", { chat_id: chatId, text });
    } catch {
      const list = waitingOf(chatId);
      const at = list.findIndex((w) => w.id === item.id);
      if (at < 0) return;
      list[at] = { ...item, kind: "queue" };
      if (!isRunning(chatId)) sendNextQueued(chatId);
    }
  }

  function removeWaiting(chatId: string, id: number): void {
    const rt = runtime(chatId);
    rt.waiting = (rt.waiting ?? []).filter((w) => w.id !== id);
  }

  /** `turn_steered`: the steers it joined are in the turn now (the transcript shows them). */
  function steered(chatId: string, text: string): void {
    const rt = runtime(chatId);
    rt.waiting = (rt.waiting ?? []).filter((w) => w.kind !== "steer" || !text.includes(w.text));
  }

  /** A turn ended: done sends the next queued message; Stop or a failure gives every waiting
   * message back to the composer (after the turn's own returned message, if any). */
  function afterTurn(chatId: string, end: "turn_done" | "turn_failed" | "turn_cancelled"): void {
    const rt = runtime(chatId);
    const waiting = rt.waiting ?? [];
    if (waiting.length === 0) return;
    if (end === "turn_done") {
      // A steer the turn never got (it answered as it came) goes as a message, in its place.
      rt.waiting = waiting.map((w) => (w.kind === "steer" ? { ...w, kind: "queue" } : w));
      sendNextQueued(chatId);
      return;
    }
    const back = rt.returned;
    const texts = [back?.text ?? "", ...waiting.map((w) => w.text)].filter((x) => x.trim());
    rt.returned = { text: texts.join("\n\n"), attachments: [...(back?.attachments ?? []), ...waiting.flatMap((w) => w.attachments)] };
    rt.waiting = [];
  }

  function sendNextQueued(chatId: string): void {
    const rt = runtime(chatId);
    const next = rt.waiting?.[0];
    if (!next) return;
    rt.waiting = rt.waiting?.slice(1);
    void send(chatId, next.text, next.model, next.mentions, next.attachments);
  }

  function retry(chatId: string): Promise<boolean> {
    runtime(chatId).error = null;
    return guarded(chatId, () => api.invoke("chat.retry", { chat_id: chatId }));
  }

  /** `via`: the surface answering (the Quick Ask window says so; other views show it). */
  function answer(chatId: string, approvalId: string, decision: "deny" | "once" | "always", via: "chat" | "quick_ask" = "chat"): Promise<boolean> {
    const rt = runtime(chatId);
    rt.approvals = rt.approvals.filter((a) => a.approval_id !== approvalId);
    return guarded(chatId, () => api.invoke("chat.approve", { approval_id: approvalId, decision, via }));
  }

  function dismissError(chatId: string): void {
    runtime(chatId).error = null;
  }

  /** The cause of a shown error may be fixed (a provider or model changed): drop errors of
   * that kind from every chat, so no stale banner stays behind. */
  function clearErrors(codes: readonly string[]): void {
    for (const rt of Object.values(runtimes.value)) {
      if (rt.error && codes.includes(rt.error.code)) rt.error = null;
    }
  }

  /** Hand a returned message to the composer (once). */
  function takeReturned(chatId: string): ReturnedDraft | null {
    const rt = runtimes.value[chatId];
    const draft = rt?.returned ?? null;
    if (rt) rt.returned = null;
    return draft;
  }

  function isRunning(chatId: string): boolean {
    const rt = runtimes.value[chatId];
    return Boolean(rt?.running || rt?.sending || summaries.value[chatId]?.running);
  }

  /** Tests: paint synchronously / choose the frame scheduler. */
  function flushNow(): void {
    flushAll();
  }
  function useFrameScheduler(next: FrameScheduler): void {
    frame = next;
  }

  return {
    summaries, runtimes, currentId, list, current, runtime, applyBatch, loadList, loadHistory, loadOlder, open, reveal,
    entries, create, createNew, creatingChat, setAgent, rename, remove, send, queue, steer, removeWaiting, edit, regenerate, switchBranch, viewThrough, makeCurrent, backToCurrent, cancel, retry, answer, dismissError, clearErrors, takeReturned, isRunning, flushNow, useFrameScheduler,
    listNext, listLoading, loadMore, loadMatching,
  };
});
