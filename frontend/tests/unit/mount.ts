import { mount } from "@vue/test-utils";
import type { Component } from "vue";
import { createMemoryHistory } from "vue-router";
import { FakeTransport } from "@/api/fake";
import { createAppRouter } from "@/router";
import { setup } from "./helpers";

/** Mount with a fresh Pinia (FakeTransport installed) and an in-memory router. */
export async function mountWith(component: Component, options: { props?: Record<string, unknown>; fake?: FakeTransport; path?: string } = {}) {
  const ctx = setup(options.fake ?? new FakeTransport());
  const router = createAppRouter(createMemoryHistory());
  await router.push(options.path ?? "/");
  await router.isReady();
  const wrapper = mount(component, {
    props: options.props,
    attachTo: document.body,
    global: { plugins: [ctx.pinia, router] },
  });
  return { ...ctx, router, wrapper };
}

export const tick = () => new Promise((r) => setTimeout(r, 0));
