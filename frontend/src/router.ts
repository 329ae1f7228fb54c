import { createRouter, createWebHashHistory } from "vue-router";
import type { Router, RouterHistory } from "vue-router";
import ChatView from "@/views/ChatView.vue";
import OnboardingView from "@/views/OnboardingView.vue";
import McpView from "@/views/McpView.vue";
import QuickAskView from "@/views/QuickAskView.vue";
import SettingsView from "@/views/SettingsView.vue";
import MemoryView from "@/views/MemoryView.vue";
import SkillsView from "@/views/SkillsView.vue";
import UsageView from "@/views/UsageView.vue";
import EvalsView from "@/views/EvalsView.vue";

/** Hash history: pywebview's static server has no SPA fallback for deep paths. */
export function createAppRouter(history: RouterHistory = createWebHashHistory()): Router {
  return createRouter({
    history,
    routes: [
      { path: "/", name: "home", component: ChatView },
      { path: "/chat/:id", name: "chat", component: ChatView },
      { path: "/settings", name: "settings", component: SettingsView },
      { path: "/welcome", name: "welcome", component: OnboardingView },
      { path: "/mcp", name: "mcp", component: McpView },
      { path: "/memory", name: "memory", component: MemoryView },
      { path: "/skills", name: "skills", component: SkillsView },
      { path: "/usage", name: "usage", component: UsageView },
      { path: "/evals", name: "evals", component: EvalsView },
      { path: "/quick", name: "quick", component: QuickAskView },
      { path: "/:pathMatch(.*)*", redirect: "/" },
    ],
  });
}
