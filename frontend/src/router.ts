import { createRouter, createWebHashHistory } from "vue-router";
import type { Router, RouterHistory } from "vue-router";
import ChatView from "@/views/ChatView.vue";
import OnboardingView from "@/views/OnboardingView.vue";
import QuickAskView from "@/views/QuickAskView.vue";
import SettingsView from "@/views/SettingsView.vue";

/** Hash history: pywebview's static server has no SPA fallback for deep paths. */
export function createAppRouter(history: RouterHistory = createWebHashHistory()): Router {
  return createRouter({
    history,
    routes: [
      { path: "/", name: "home", component: ChatView },
      { path: "/chat/:id", name: "chat", component: ChatView },
      { path: "/settings", name: "settings", component: SettingsView },
      { path: "/welcome", name: "welcome", component: OnboardingView },
      { path: "/quick", name: "quick", component: QuickAskView },
      { path: "/:pathMatch(.*)*", redirect: "/" },
    ],
  });
}
