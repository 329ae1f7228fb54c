import type { RouteName } from "./generated";
import { ApiError, EventHub, toBatch, unwrap } from "./transport";
import type { EventListener, Request, Response, Transport } from "./transport";

export interface PywebviewApi {
  invoke(route: string, payload: unknown): Promise<unknown>;
}

/** The parts of `window` this transport touches (injectable for tests). */
export interface PywebviewHost {
  pywebview?: { api?: Partial<PywebviewApi> };
  __cashcode?: { dispatch(batch: unknown): void };
  addEventListener(type: string, cb: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: string, cb: () => void): void;
}

export interface PywebviewOptions {
  host?: PywebviewHost;
  /** How long to wait for `pywebviewready` before failing calls. */
  readyTimeoutMs?: number;
}

/**
 * Desktop transport: `window.pywebview.api.invoke(route, payload)` returns the envelope;
 * events arrive as `window.__cashcode.dispatch(batch)` (installed here, at construction).
 */
export class PywebviewTransport implements Transport {
  readonly kind = "pywebview" as const;
  private readonly host: PywebviewHost;
  private readonly hub = new EventHub();
  private readonly timeoutMs: number;
  private ready: Promise<PywebviewApi> | null = null;

  constructor(options: PywebviewOptions = {}) {
    this.host = options.host ?? (window as unknown as PywebviewHost);
    this.timeoutMs = options.readyTimeoutMs ?? 20_000;
    this.host.__cashcode = { dispatch: (batch: unknown) => this.dispatch(batch) };
  }

  dispatch(batch: unknown): void {
    this.hub.emit(toBatch(batch));
  }

  private api(): PywebviewApi | null {
    const api = this.host.pywebview?.api;
    return api && typeof api.invoke === "function" ? (api as PywebviewApi) : null;
  }

  /** Resolves once `window.pywebview.api` exists (it is injected after the page loads). */
  whenReady(): Promise<PywebviewApi> {
    const now = this.api();
    if (now) return Promise.resolve(now);
    this.ready ??= new Promise<PywebviewApi>((resolve, reject) => {
      const onReady = () => {
        const api = this.api();
        if (!api) return; // keep waiting: another `pywebviewready` may follow
        clearTimeout(timer);
        clearInterval(poll);
        this.host.removeEventListener("pywebviewready", onReady);
        resolve(api);
      };
      const timer = setTimeout(() => {
        clearInterval(poll);
        this.host.removeEventListener("pywebviewready", onReady);
        this.ready = null;
        reject(new ApiError("bridge", "unavailable", "The desktop bridge did not start.", {}, { key: "client.no_bridge" }));
      }, this.timeoutMs);
      // Belt and braces: the event can fire before we listen.
      const poll = setInterval(onReady, 100);
      this.host.addEventListener("pywebviewready", onReady);
    });
    return this.ready;
  }

  async invoke<R extends RouteName>(route: R, payload: Request<R>): Promise<Response<R>> {
    const api = await this.whenReady();
    let raw: unknown;
    try {
      raw = await api.invoke(route, payload);
    } catch (err) {
      const message = err && typeof err === "object" && "message" in err ? String(err.message) : String(err);
      throw new ApiError(route, "internal", message || "The backend call failed.");
    }
    return unwrap(route, raw);
  }

  onEvents(cb: EventListener): () => void {
    return this.hub.subscribe(cb);
  }
}

