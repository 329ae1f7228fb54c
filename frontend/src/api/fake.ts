import type { AppEvent, RouteName } from "./generated";
import { ApiError, EventHub } from "./transport";
import type { EventListener, Request, Response, Transport } from "./transport";

export type Handler<R extends RouteName> = (payload: Request<R>) => Response<R> | Promise<Response<R>>;
export type Handlers = { [R in RouteName]?: Handler<R> };

/** An in-memory transport: scripted route handlers, recorded calls, events pushed by hand. */
export class FakeTransport implements Transport {
  readonly kind = "fake" as const;
  readonly calls: { route: RouteName; payload: unknown }[] = [];
  private readonly hub = new EventHub();
  private readonly reconnectListeners = new Set<() => void>();

  constructor(public handlers: Handlers = {}) {}

  on<R extends RouteName>(route: R, handler: Handler<R>): this {
    (this.handlers as Record<string, unknown>)[route] = handler;
    return this;
  }

  async invoke<R extends RouteName>(route: R, payload: Request<R>): Promise<Response<R>> {
    this.calls.push({ route, payload });
    const handler = this.handlers[route] as Handler<R> | undefined;
    if (!handler) throw new ApiError(route, "unsupported", `No fake handler for ${route}`);
    return await handler(payload);
  }

  callsTo(route: RouteName): unknown[] {
    return this.calls.filter((c) => c.route === route).map((c) => c.payload);
  }

  emit(batch: AppEvent[]): void {
    this.hub.emit(batch);
  }

  reconnect(): void {
    this.reconnectListeners.forEach((cb) => cb());
  }

  onEvents(cb: EventListener): () => void {
    return this.hub.subscribe(cb);
  }

  onReconnect(cb: () => void): () => void {
    this.reconnectListeners.add(cb);
    return () => this.reconnectListeners.delete(cb);
  }
}
