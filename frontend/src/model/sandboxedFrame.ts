/**
 * The one set of rules for a frame that shows content the app did not write (a model's HTML/SVG
 * artifact today, an MCP App later; docs/decisions.md 150, 290). Each frame gets all of them:
 *
 * - `sandbox="allow-scripts"`, never `allow-same-origin`: an opaque origin (no cookies, storage,
 *   app page or bridge), no popups, forms, top navigation or downloads;
 * - `allow`: every powerful feature off (the same list as the page's Permissions-Policy header,
 *   app/server/headers.py);
 * - no referrer, so the app page's address never reaches the frame;
 * - the page it loads is `/artifact.html` at the server's root, outside `cashcode serve`'s secret
 *   UI prefix: the frame's own `location` holds no secret. That page brings the content policy
 *   (no network) and takes away what a policy does not govern (WebRTC, nested frames).
 */

/** The address of the sandbox page, from the server's root (the same in the window). */
export const SANDBOX_PAGE = "/artifact.html";

export const SANDBOXED_FRAME_ATTRIBUTES = {
  sandbox: "allow-scripts",
  allow: [
    "camera",
    "microphone",
    "display-capture",
    "geolocation",
    "usb",
    "serial",
    "hid",
    "bluetooth",
    "midi",
    "payment",
    "publickey-credentials-get",
    "clipboard-read",
    "clipboard-write",
  ]
    .map((feature) => `${feature} 'none'`)
    .join("; "),
  referrerpolicy: "no-referrer",
} as const;

/** Give `frame` every rule above (before it gets its `src`). */
export function applySandboxRules(frame: HTMLIFrameElement): void {
  for (const [name, value] of Object.entries(SANDBOXED_FRAME_ATTRIBUTES)) frame.setAttribute(name, value);
}
