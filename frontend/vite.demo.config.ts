// Builds dev/index.html: the real UI over an in-memory scripted backend (for screenshots and
// manual checks without Python). Not part of the shipped bundle.
import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vite";
import base from "./vite.config.ts";

export default mergeConfig(
  base,
  defineConfig({
    root: fileURLToPath(new URL("./dev", import.meta.url)),
    build: { outDir: process.env.DEMO_OUT ?? "/tmp/cashcode-demo", emptyOutDir: true },
  }),
);
