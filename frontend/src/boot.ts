import { createPinia } from "pinia";
import { createApp } from "vue";
import type { App } from "vue";
import type { RouterHistory } from "vue-router";
import type { Transport } from "@/api/transport";
import AppRoot from "./App.vue";
import { createAppRouter } from "./router";
import { errorMessage } from "./stores/api";
import { useAppStore } from "./stores/app";
import "./styles/main.css";
import "./styles/memory.css";

/** Mount the UI on `selector` and start talking to the backend through `transport`. */
export function boot(transport: Transport, selector = "#app", history?: RouterHistory): App {
  const app = createApp(AppRoot);
  const pinia = createPinia();
  app.use(pinia);
  app.use(createAppRouter(history));
  const store = useAppStore(pinia);
  app.config.errorHandler = (err) => store.fail(errorMessage(err));
  app.mount(selector);
  void store.start(transport);
  return app;
}
