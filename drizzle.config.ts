import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  // The core's tables and each rail's own (src/rails/<scheme>/store/tables.ts): one migration history for all.
  schema: ["./src/store/schema.ts", "./src/rails/*/store/tables.ts"],
  out: "./migrations",
});
