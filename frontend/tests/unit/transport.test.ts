import { afterEach, describe, expect, it, vi } from "vitest";
import type { AppEvent } from "@/api/generated";
import { HttpTransport, basePath } from "@/api/http";
import type { SocketLike } from "@/api/http";
import { PywebviewTransport } from "@/api/pywebview";
import type { PywebviewHost } from "@/api/pywebview";
import { ApiError, EventHub, toBatch, unwrap } from "@/api/transport";

const EV: AppEvent = { type: "delta", chat_id: "c1", turn_id: "t1", text: "x", channel: "text" };

class FakeHost implements PywebviewHost {
  pywebview?: PywebviewHost["pywebview"];
  __cashcode?: PywebviewHost["__cashcode"];
  listeners = new Map<string, Set<() => void>>();
  addEventListener(type: string, cb: () => void): void {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)?.add(cb);
  }
  removeEventListener(type: string, cb: () => void): void {
    this.listeners.get(type)?.delete(cb);
  }
  fire(type: string): void {
    this.listeners.get(type)?.forEach((cb) => cb());
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe("envelope", () => {
  it("unwraps data and throws typed errors", () => {
    expect(unwrap("app.info", { ok: true, data: { version: "1" } })).toEqual({ version: "1" });
    try {
      unwrap("chats.delete", { ok: false, error: { code: "busy", message: "A turn is running.", details: { chat_id: "c1" } } });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: "busy", message: "A turn is running.", route: "chats.delete", details: { chat_id: "c1" } });
    }
    expect(() => unwrap("app.info", "garbage")).toThrow(ApiError);
    expect(unwrap("app.info", JSON.stringify({ ok: true, data: 1 }))).toBe(1);
  });

  it("normalises event payloads into batches", () => {
    expect(toBatch([EV, { nope: 1 }])).toEqual([EV]);
    expect(toBatch(JSON.stringify([EV]))).toEqual([EV]);
    expect(toBatch(EV)).toEqual([EV]);
    expect(toBatch("not json")).toEqual([]);
  });

  it("EventHub delivers the backlog to the first listener and isolates failing listeners", () => {
    const hub = new EventHub();
    hub.emit([EV]);
    const got: AppEvent[][] = [];
    hub.subscribe((b) => got.push(b));
    expect(got).toEqual([[EV]]);
    vi.spyOn(globalThis, "queueMicrotask").mockImplementation(() => undefined);
    hub.subscribe(() => {
      throw new Error("bad listener");
    });
    hub.emit([EV]);
    expect(got.length).toBe(2);
  });
});

describe("PywebviewTransport", () => {
  it("calls window.pywebview.api.invoke and unwraps the envelope", async () => {
    const host = new FakeHost();
    const invoke = vi.fn(async (route: string, payload: unknown) => ({ ok: true, data: { route, payload } }));
    host.pywebview = { api: { invoke } };
    const t = new PywebviewTransport({ host });
    await expect(t.invoke("chats.get", { chat_id: "c1" })).resolves.toEqual({ route: "chats.get", payload: { chat_id: "c1" } });
    expect(invoke).toHaveBeenCalledWith("chats.get", { chat_id: "c1" });
  });

  it("waits for pywebviewready when the bridge is not there yet", async () => {
    const host = new FakeHost();
    const t = new PywebviewTransport({ host });
    const pending = t.invoke("app.info", {});
    host.pywebview = { api: { invoke: async () => ({ ok: true, data: "ready" }) } };
    host.fire("pywebviewready");
    await expect(pending).resolves.toBe("ready");
  });

  it("fails with `unavailable` when the bridge never comes", async () => {
    vi.useFakeTimers();
    const t = new PywebviewTransport({ host: new FakeHost(), readyTimeoutMs: 1000 });
    const pending = t.invoke("app.info", {});
    vi.advanceTimersByTime(1001);
    await expect(pending).rejects.toMatchObject({ code: "unavailable" });
  });

  it("throws ApiError for error envelopes and rejected calls", async () => {
    const host = new FakeHost();
    host.pywebview = {
      api: {
        invoke: async (route: string) => {
          if (route === "chats.delete") return { ok: false, error: { code: "busy", message: "running", details: {} } };
          throw { name: "Exception", message: "boom", stack: "" };
        },
      },
    };
    const t = new PywebviewTransport({ host });
    await expect(t.invoke("chats.delete", { chat_id: "c1" })).rejects.toMatchObject({ code: "busy", message: "running" });
    await expect(t.invoke("app.info", {})).rejects.toMatchObject({ code: "internal", message: "boom" });
  });

  it("installs window.__cashcode.dispatch and delivers batches (also those sent before subscribing)", () => {
    const host = new FakeHost();
    const t = new PywebviewTransport({ host });
    host.__cashcode?.dispatch([EV]);
    const got: AppEvent[][] = [];
    const off = t.onEvents((b) => got.push(b));
    host.__cashcode?.dispatch([EV, EV]);
    off();
    host.__cashcode?.dispatch([EV]);
    expect(got.map((b) => b.length)).toEqual([1, 2]);
  });
});

class FakeSocket implements SocketLike {
  static all: FakeSocket[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  closed = false;
  constructor(public url: string) {
    FakeSocket.all.push(this);
  }
  close(): void {
    this.closed = true;
  }
}

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

describe("HttpTransport", () => {
  const location = { protocol: "http:", host: "127.0.0.1:8123" };

  it("POSTs JSON to /api/invoke/<route> with credentials and unwraps the envelope", async () => {
    const fetch = vi.fn(async (_url: string, _init: RequestInit) => jsonResponse({ ok: true, data: { chats: [] } }));
    const t = new HttpTransport({ fetch, location, WebSocket: FakeSocket });
    await expect(t.invoke("chats.list", {})).resolves.toEqual({ chats: [] });
    const [url, init] = fetch.mock.calls[0];
    expect(url).toBe("/api/invoke/chats.list");
    expect(init).toMatchObject({ method: "POST", credentials: "include", body: "{}" });
    expect((init.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
  });

  it("maps error envelopes, HTTP failures and network errors to ApiError", async () => {
    const replies: (() => Promise<Response>)[] = [
      async () => jsonResponse({ ok: false, error: { code: "not_found", message: "No such chat", details: {} } }, 404),
      async () => new Response("nope", { status: 403 }),
      async () => new Response("<html>", { status: 502 }),
      async () => {
        throw new TypeError("Failed to fetch");
      },
    ];
    const t = new HttpTransport({ fetch: () => replies.shift()!(), location, WebSocket: FakeSocket });
    await expect(t.invoke("chats.get", { chat_id: "x" })).rejects.toMatchObject({ code: "not_found", message: "No such chat" });
    await expect(t.invoke("app.info", {})).rejects.toMatchObject({ code: "unauthorized" });
    await expect(t.invoke("app.info", {})).rejects.toMatchObject({ code: "protocol" });
    await expect(t.invoke("app.info", {})).rejects.toMatchObject({ code: "unavailable" });
  });

  it("opens the events socket on the same host and delivers JSON arrays", () => {
    FakeSocket.all = [];
    const t = new HttpTransport({ fetch: vi.fn(), location: { protocol: "https:", host: "example.test" }, WebSocket: FakeSocket });
    const got: AppEvent[][] = [];
    t.onEvents((b) => got.push(b));
    expect(FakeSocket.all.map((s) => s.url)).toEqual(["wss://example.test/api/events"]);
    FakeSocket.all[0].onopen?.({});
    FakeSocket.all[0].onmessage?.({ data: JSON.stringify([EV, EV]) });
    expect(got).toEqual([[EV, EV]]);
    t.close();
    expect(FakeSocket.all[0].closed).toBe(true);
  });

  it("keeps the API and the events socket under the page's path prefix (serve's secret prefix)", async () => {
    FakeSocket.all = [];
    const fetch = vi.fn(async (_url: string, _init: RequestInit) => jsonResponse({ ok: true, data: {} }));
    const prefixed = { protocol: "http:", host: "127.0.0.1:8123", pathname: "/ui-abc123/" };
    const t = new HttpTransport({ fetch, location: prefixed, WebSocket: FakeSocket });
    await t.invoke("app.info", {});
    expect(fetch.mock.calls[0][0]).toBe("/ui-abc123/api/invoke/app.info");
    t.onEvents(() => undefined);
    expect(FakeSocket.all.map((s) => s.url)).toEqual(["ws://127.0.0.1:8123/ui-abc123/api/events"]);
    t.close();
    expect(basePath("/ui-abc123/index.html")).toBe("/ui-abc123/");
    expect(basePath("/")).toBe("/");
    expect(basePath(undefined)).toBe("/");
  });

  it("says the server is gone when a retry after a drop cannot connect, and back when it answers", () => {
    vi.useFakeTimers();
    FakeSocket.all = [];
    const t = new HttpTransport({ fetch: vi.fn(), location, WebSocket: FakeSocket, baseDelayMs: 100, maxDelayMs: 1000 });
    const states: boolean[] = [];
    t.onConnection((up) => states.push(up));
    t.onEvents(() => undefined);
    FakeSocket.all[0].onopen?.({});
    FakeSocket.all[0].onclose?.({}); // a drop alone may be a blip
    expect(states).toEqual([]);
    vi.advanceTimersByTime(100);
    FakeSocket.all[1].onclose?.({}); // the retry cannot connect: gone
    expect(states).toEqual([false]);
    vi.advanceTimersByTime(200);
    FakeSocket.all[2].onclose?.({});
    expect(states).toEqual([false]); // said once
    vi.advanceTimersByTime(400);
    FakeSocket.all[3].onopen?.({});
    expect(states).toEqual([false, true]);
    t.close();
  });

  it("reconnects with exponential backoff and reports the reconnection", () => {
    vi.useFakeTimers();
    FakeSocket.all = [];
    const t = new HttpTransport({ fetch: vi.fn(), location, WebSocket: FakeSocket, baseDelayMs: 100, maxDelayMs: 1000 });
    const reconnected = vi.fn();
    t.onReconnect(reconnected);
    t.onEvents(() => undefined);
    FakeSocket.all[0].onopen?.({});
    FakeSocket.all[0].onclose?.({});
    vi.advanceTimersByTime(99);
    expect(FakeSocket.all.length).toBe(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all.length).toBe(2);
    FakeSocket.all[1].onclose?.({}); // fails again: next wait doubles
    vi.advanceTimersByTime(199);
    expect(FakeSocket.all.length).toBe(2);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all.length).toBe(3);
    FakeSocket.all[2].onopen?.({});
    expect(reconnected).toHaveBeenCalledTimes(1);
    expect(t.delayFor(10)).toBe(1000);
    expect(FakeSocket.all[2].url).toBe("ws://127.0.0.1:8123/api/events");
    t.close();
  });
});
