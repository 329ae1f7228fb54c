/// <reference types="vitest/config" />
import { fileURLToPath } from "node:url";
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";
import { mermaidLabelText } from "./dev/mermaidLabelText";

// pywebview serves the built folder from its own static server with no SPA fallback, so the
// bundle uses relative asset URLs (`base: './'`) and the router uses hash history.
export default defineConfig({
  base: "./",
  plugins: [vue(), mermaidLabelText()],
  resolve: {
    alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) },
  },
  build: {
    outDir: fileURLToPath(new URL("../app/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2020",
    sourcemap: false,
    chunkSizeWarningLimit: 1200,
    // Fonts stay files: the CSP allows fonts from 'self' only, and an inlined data: font (a
    // small KaTeX one) was refused and logged whenever formulas rendered (issue 41).
    assetsInlineLimit: (file: string) => (/\.(woff2?|ttf|otf|eot)$/i.test(file) ? false : undefined),
  },
  test: {
    environment: "jsdom",
    include: ["tests/unit/**/*.test.ts"],
    restoreMocks: true,
  },
});
