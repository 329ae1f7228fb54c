/** Pure helpers for the chat list's second line: message count and last activity. */
import type { MessageKey, Params } from "@/i18n";

type Translate = (key: MessageKey, params?: Params) => string;

export function messageCount(t: Translate, count: number): string {
  if (count <= 0) return t("chatlist.noMessages");
  return count === 1 ? t("chatlist.oneMessage") : t("chatlist.messages", { count });
}

/** "just now", "5 min ago", "3 h ago", "2 d ago"; older than a week: the date. */
export function relativeTime(t: Translate, iso: string, now: number = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return "";
  const minutes = Math.floor(Math.max(0, now - at) / 60_000);
  if (minutes < 1) return t("chatlist.justNow");
  if (minutes < 60) return t("chatlist.minutesAgo", { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return t("chatlist.hoursAgo", { n: hours });
  const days = Math.floor(hours / 24);
  if (days < 7) return t("chatlist.daysAgo", { n: days });
  return new Date(at).toISOString().slice(0, 10);
}
