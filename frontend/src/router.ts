import { createRouter, createWebHashHistory } from "vue-router";
import type { Router, RouterHistory } from "vue-router";
import ChatView from "@/views/ChatView.vue";

// Only the chat view is in the first bundle: every other view (Settings, Memory, Usage with
// Chart.js, Evals, the markets, Quick Ask) is its own chunk, fetched when first opened, so the
// window's first paint parses and compiles less script (bench/README.md, start-up rows).

/** Hash history: pywebview's static server has no SPA fallback for deep paths. */
export function createAppRouter(history: RouterHistory = createWebHashHistory()): Router {
  return createRouter({
    history,
    routes: [
      { path: "/", name: "home", component: ChatView },
      { path: "/chat/:id", name: "chat", component: ChatView },
      { path: "/inbox", name: "inbox", component: () => import("@/views/InboxView.vue") },
      { path: "/settings", name: "settings", component: () => import("@/views/SettingsView.vue") },
      { path: "/welcome", name: "welcome", component: () => import("@/views/OnboardingView.vue") },
      { path: "/mcp", name: "mcp", component: () => import("@/views/McpView.vue") },
      { path: "/memory", name: "memory", component: () => import("@/views/MemoryView.vue") },
      { path: "/knowledge", name: "knowledge", component: () => import("@/views/KnowledgeView.vue") },
      { path: "/skills", name: "skills", component: () => import("@/views/SkillsView.vue") },
      { path: "/usage", name: "usage", component: () => import("@/views/UsageView.vue") },
      { path: "/evals", name: "evals", component: () => import("@/views/EvalsView.vue") },
      { path: "/agents", name: "agents", component: () => import("@/views/AgentsView.vue") },
      { path: "/tasks", name: "tasks", component: () => import("@/views/TasksView.vue") },
      { path: "/quick", name: "quick", component: () => import("@/views/QuickAskView.vue") },
      { path: "/:pathMatch(.*)*", redirect: "/" },
    ],
  });
}
