// Builds the Activity Timeline page into dist/, which keel-server embeds (crates/server/build.rs).
import { defineConfig } from "vitest/config";

export default defineConfig({
  base: "/",
  esbuild: { jsx: "automatic" },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    target: "es2022",
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});
