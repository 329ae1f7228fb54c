/**
 * The one bridge between the UI and the backend: `invoke(route, payload)` plus one event
 * channel. Implementations: PywebviewTransport (desktop), HttpTransport (`cashcode serve`),
 * FakeTransport (tests).
 */
import type { ApiError as ApiErrorBody, AppEvent, RouteName, Routes } from "./generated";

export type Request<R extends RouteName> = Routes[R]["request"];
export type Response<R extends RouteName> = Routes[R]["response"];

export type Envelope<T> = { ok: true; data: T } | { ok: false; error: ApiErrorBody };

/** Codes from the backend plus the transport's own (`unavailable`, `protocol`). */
export type ApiErrorCode =
  | "invalid"
  | "not_found"
  | "conflict"
  | "busy"
  | "database_busy"
  | "provider_error"
  | "keyring_unavailable"
  | "unsupported"
  | "internal"
  | "unavailable"
  | "unauthorized"
  | "protocol"
  | (string & {});

/** A failed route call, carrying the envelope's error. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly details: Record<string, string>;
  readonly route: string;
  /** The backend's catalog entry for the message ("" if none) and what it names. */
  readonly key: string;
  readonly params: Record<string, string>;

  constructor(
    route: string,
    code: ApiErrorCode,
    message: string,
    details: Record<string, string> = {},
    worded: { key?: string; params?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.route = route;
    this.code = code;
    this.details = details;
    this.key = worded.key ?? "";
    this.params = worded.params ?? {};
  }
}

export type EventListener = (batch: AppEvent[]) => void;
export type TransportKind = "pywebview" | "http" | "fake";

export interface Transport {
  readonly kind: TransportKind;
  invoke<R extends RouteName>(route: R, payload: Request<R>): Promise<Response<R>>;
  /** Subscribe to event batches; returns the unsubscribe function. */
  onEvents(cb: EventListener): () => void;
  /** Called after the event channel came back from an outage (events may have been missed). */
  onReconnect?(cb: () => void): () => void;
  /** Called with false when the server seems gone (the event channel dropped and a retry
   * failed too), and with true once it answers again. */
  onConnection?(cb: (up: boolean) => void): () => void;
  close?(): void;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Turn an envelope (as received, untrusted) into data or a thrown ApiError. */
export function unwrap<R extends RouteName>(route: R, raw: unknown): Response<R> {
  const envelope = typeof raw === "string" ? safeParse(raw) : raw;
  if (!isRecord(envelope) || typeof envelope.ok !== "boolean") {
    throw new ApiError(route, "protocol", `Unexpected reply from the backend for ${route}.`, {}, { key: "client.bad_reply", params: { route } });
  }
  if (envelope.ok) return envelope.data as Response<R>;
  const error = isRecord(envelope.error) ? envelope.error : {};
  const code = typeof error.code === "string" ? error.code : "internal";
  const message = typeof error.message === "string" ? error.message : "Unknown error";
  const details = isRecord(error.details) ? (error.details as Record<string, string>) : {};
  const key = typeof error.key === "string" ? error.key : "";
  const params = isRecord(error.params) ? (error.params as Record<string, string>) : {};
  throw new ApiError(route, code, message, details, { key, params });
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Normalise what arrives on an event channel into an array of events. */
export function toBatch(raw: unknown): AppEvent[] {
  const value = typeof raw === "string" ? safeParse(raw) : raw;
  if (Array.isArray(value)) return value.filter(isEvent);
  return isEvent(value) ? [value] : [];
}

function isEvent(value: unknown): value is AppEvent {
  return isRecord(value) && typeof value.type === "string";
}

/**
 * Fan-out of event batches to listeners. Batches that arrive before anyone listens are kept
 * (bounded) and delivered to the first listener, so start-up events are never lost.
 */
export class EventHub {
  private listeners = new Set<EventListener>();
  private backlog: AppEvent[] = [];

  constructor(private readonly backlogLimit = 10_000) {}

  emit(batch: AppEvent[]): void {
    if (batch.length === 0) return;
    if (this.listeners.size === 0) {
      this.backlog.push(...batch);
      if (this.backlog.length > this.backlogLimit) {
        this.backlog.splice(0, this.backlog.length - this.backlogLimit);
      }
      return;
    }
    for (const listener of [...this.listeners]) {
      try {
        listener(batch);
      } catch (err) {
        // One failing listener must not starve the others.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  subscribe(cb: EventListener): () => void {
    this.listeners.add(cb);
    if (this.backlog.length > 0) {
      const pending = this.backlog;
      this.backlog = [];
      cb(pending);
    }
    return () => {
      this.listeners.delete(cb);
    };
  }

  get size(): number {
    return this.listeners.size;
  }
}
