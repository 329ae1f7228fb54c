/**
 * What the host tells an MCP App and how its frame is set up (pure, tested without a frame).
 * The frame gets every rule of model/sandboxedFrame.ts; a powerful feature the App declared is
 * on only after the person allowed it (once or always).
 */
import type { McpUiHostCapabilities, McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";
import { SANDBOXED_FRAME_ATTRIBUTES } from "@/model/sandboxedFrame";

/** The App permissions and their Permissions Policy feature names. */
export const FEATURES = {
  camera: "camera",
  microphone: "microphone",
  geolocation: "geolocation",
  clipboardWrite: "clipboard-write",
} as const;
export type AppPermission = keyof typeof FEATURES;

/** The window's App loader (public/mcp-app.html) and the two messages it exchanges. */
export const APP_LOADER = "/mcp-app.html";
export const APP_LOADER_READY = "cashcode-app-loader-ready";
export const APP_LOADER_PAGE = "cashcode-app-page";

export const MIN_HEIGHT = 120;
export const MAX_HEIGHT = 900;

/** The frame's `allow`: every feature off, except the allowed ones (for the frame only). */
export function frameAllow(allowed: readonly AppPermission[]): string {
  const on = new Set<string>(allowed.map((p) => FEATURES[p]));
  const parts = SANDBOXED_FRAME_ATTRIBUTES.allow.split("; ").map((part) => {
    const feature = part.split(" ")[0] ?? "";
    return on.has(feature) ? `${feature} *` : part;
  });
  return parts.join("; ");
}

export function hostCapabilities(domains: { connect: string[]; resources: string[]; frames: string[] }, granted: AppPermission[]): McpUiHostCapabilities {
  const permissions: Record<string, object> = {};
  for (const p of granted) permissions[p] = {};
  return {
    openLinks: {},
    serverTools: {},
    logging: {},
    updateModelContext: { text: {} },
    message: { text: {} },
    sandbox: {
      permissions,
      csp: { connectDomains: domains.connect, resourceDomains: domains.resources, frameDomains: domains.frames },
    },
  };
}

export function hostContext(opts: {
  theme: "light" | "dark";
  locale: string;
  platform: "web" | "desktop";
  tool: { name: string; description: string; inputSchema: Record<string, unknown> };
  maxHeight: number;
}): McpUiHostContext {
  return {
    theme: opts.theme,
    locale: opts.locale,
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    platform: opts.platform,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    containerDimensions: { maxHeight: opts.maxHeight },
    toolInfo: { tool: { name: opts.tool.name, description: opts.tool.description, inputSchema: { type: "object", ...opts.tool.inputSchema } } },
  };
}

/** The text of an App's content blocks (ui/message, ui/update-model-context). */
export function blocksText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((b: unknown) => (b && typeof b === "object" && (b as { type?: unknown }).type === "text" ? String((b as { text?: unknown }).text ?? "") : ""))
    .filter(Boolean)
    .join("\n");
}

/** Only web addresses are offered to open (asked first). */
export function openableLink(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}
