import type { InjectionKey, Ref } from "vue";

/** The chat a view shows, for components deep in its message list (an MCP App's card). */
export const CHAT_ID: InjectionKey<Readonly<Ref<string | null>>> = Symbol("chatId");
