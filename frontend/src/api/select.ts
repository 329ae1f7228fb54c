import { HttpTransport } from "./http";
import { PywebviewTransport } from "./pywebview";
import type { Transport } from "./transport";

declare global {
  interface Window {
    /** Set by `runtime-config.js` before the bundle loads. */
    __CASHCODE_TRANSPORT__?: string;
  }
}

/** Pick the transport named by runtime-config.js (default: the desktop bridge). */
export function createTransport(name: string | undefined = window.__CASHCODE_TRANSPORT__): Transport {
  if (name === "http") return new HttpTransport();
  return new PywebviewTransport();
}
