/** Pure helpers of the Inbox (issue 35): order, and how an item's outcome is worded. */
import type { InboxItem } from "@/api/generated";
import type { MessageKey, Params } from "@/i18n";

type Translate = (key: MessageKey, params?: Params) => string;
export type Surface = NonNullable<InboxItem["answered_by"]>;

/** Waiting items oldest first (the one waiting longest is the one to answer first). */
export function pendingFirst(items: readonly InboxItem[]): InboxItem[] {
  return items.filter((i) => i.status === "pending").sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}

/** Closed items newest first. */
export function closedNewest(items: readonly InboxItem[]): InboxItem[] {
  return items.filter((i) => i.status !== "pending").sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

/** The decision's word for this kind of item ("Allowed once", "Submitted", "Accepted"). */
export function decisionText(t: Translate, kind: InboxItem["kind"], answer: string | null): string {
  if (kind === "elicitation") return t(answer === "deny" || answer === "decline" ? "inbox.decision.declined" : "inbox.decision.submitted");
  if (kind === "memory_review") return t(answer === "deny" || answer === "reject" ? "inbox.decision.rejected" : "inbox.decision.accepted");
  if (answer === "once" || answer === "always" || answer === "deny") return t(`inbox.decision.${answer}`);
  return answer ?? "";
}

/** Where the answer came from, as a phrase ("answered in the Inbox"). */
export function surfaceText(t: Translate, by: Surface | null | undefined): string {
  return by ? t(`inbox.by.${by}`) : "";
}

/** An item that is no longer waiting, in one line: "Allowed once — answered in the Inbox". */
export function outcomeText(t: Translate, item: Pick<InboxItem, "kind" | "status" | "answer" | "answered_by">): string {
  if (item.status === "expired") return t("inbox.status.expired");
  if (item.status === "cancelled") return t("inbox.status.cancelled");
  if (item.status === "pending") return "";
  const decision = decisionText(t, item.kind, item.answer ?? null);
  const by = surfaceText(t, item.answered_by);
  return by ? t("inbox.outcome", { decision, by }) : decision;
}
