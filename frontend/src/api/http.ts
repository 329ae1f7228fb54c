import type { RouteName } from "./generated";
import { ApiError, EventHub, toBatch, unwrap } from "./transport";
import type { EventListener, Request, Response, Transport } from "./transport";

type FetchLike = (input: string, init: RequestInit) => Promise<globalThis.Response>;

/** The subset of WebSocket used here, so tests can pass a fake class. */
export interface SocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  close(): void;
}
export type SocketFactory = new (url: string) => SocketLike;

export interface PageLocation {
  protocol: string;
  host: string;
  /** `cashcode serve` puts the UI under a secret path prefix; the API lives under it too. */
  pathname?: string;
}

/** The folder of the page's path ("/ui-x/" for "/ui-x/" or "/ui-x/index.html"; "/" by default). */
export function basePath(pathname: string | undefined): string {
  if (!pathname) return "/";
  return pathname.slice(0, pathname.lastIndexOf("/") + 1) || "/";
}

export interface HttpOptions {
  fetch?: FetchLike;
  WebSocket?: SocketFactory;
  /** Page location: origin of the API, and the path prefix the UI is served under. */
  location?: PageLocation;
  /** Reconnect delays: min(maxDelayMs, baseDelayMs * 2^attempt). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * `cashcode serve` transport: `POST <prefix>/api/invoke/<route>` (same origin, cookie auth whose
 * Path is the prefix) → envelope; events over the WebSocket `<prefix>/api/events` as JSON arrays,
 * reconnecting with backoff.
 */
export class HttpTransport implements Transport {
  readonly kind = "http" as const;
  private readonly fetchImpl: FetchLike;
  private readonly Socket: SocketFactory;
  private readonly location: PageLocation;
  private readonly hub = new EventHub();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly connectionListeners = new Set<(up: boolean) => void>();
  private readonly baseDelay: number;
  private readonly maxDelay: number;
  private socket: SocketLike | null = null;
  private attempt = 0;
  private everOpened = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private lost = false;

  constructor(options: HttpOptions = {}) {
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.Socket = options.WebSocket ?? (WebSocket as unknown as SocketFactory);
    this.location = options.location ?? window.location;
    this.baseDelay = options.baseDelayMs ?? 250;
    this.maxDelay = options.maxDelayMs ?? 5_000;
  }

  async invoke<R extends RouteName>(route: R, payload: Request<R>): Promise<Response<R>> {
    let res: globalThis.Response;
    try {
      res = await this.fetchImpl(`${basePath(this.location.pathname)}api/invoke/${encodeURIComponent(route)}`, {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(payload ?? {}),
      });
    } catch {
      throw new ApiError(route, "unavailable", "Cannot reach the CashCode server.", {}, { key: "client.unreachable" });
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      body = undefined;
    }
    if (body === undefined || (typeof body === "object" && body !== null && !("ok" in body))) {
      if (res.status === 401 || res.status === 403) {
        throw new ApiError(route, "unauthorized", "This page is not authorised; open the link printed by `cashcode serve`.", {}, {
          key: "client.unauthorized",
        });
      }
      throw new ApiError(route, "protocol", `The server answered ${res.status} for ${route}.`, {}, {
        key: "client.http_status",
        params: { status: String(res.status), route },
      });
    }
    return unwrap(route, body);
  }

  onEvents(cb: EventListener): () => void {
    const off = this.hub.subscribe(cb);
    this.connect();
    return off;
  }

  onReconnect(cb: () => void): () => void {
    this.reconnectListeners.add(cb);
    return () => this.reconnectListeners.delete(cb);
  }

  onConnection(cb: (up: boolean) => void): () => void {
    this.connectionListeners.add(cb);
    return () => this.connectionListeners.delete(cb);
  }

  private setLost(lost: boolean): void {
    if (this.lost === lost) return;
    this.lost = lost;
    this.connectionListeners.forEach((cb) => cb(!lost));
  }

  /** Delay before reconnect attempt `attempt` (0-based). */
  delayFor(attempt: number): number {
    return Math.min(this.maxDelay, this.baseDelay * 2 ** attempt);
  }

  private url(): string {
    const scheme = this.location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${this.location.host}${basePath(this.location.pathname)}api/events`;
  }

  private connect(): void {
    if (this.socket || this.closed) return;
    const socket = new this.Socket(this.url());
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.setLost(false);
      if (this.everOpened) this.reconnectListeners.forEach((cb) => cb());
      this.everOpened = true;
    };
    socket.onmessage = (ev) => this.hub.emit(toBatch(ev.data));
    socket.onerror = () => undefined; // onclose follows and schedules the retry
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      // One drop can be a blip; a retry that cannot even connect means the server is gone
      // (`cashcode serve` stopped: a new one has a new port and address).
      if (!opened && this.everOpened) this.setLost(true);
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (this.closed || this.timer) return;
    const delay = this.delayFor(this.attempt);
    this.attempt += 1;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    socket?.close();
  }
}
