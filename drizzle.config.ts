import { defineConfig } from "drizzle-kit";

/**
 * `npm run db:generate` writes migrations into drizzle/ from src/db/schema.ts (never edit them by hand;
 * FTS5 tables and triggers live in `drizzle-kit generate --custom` migrations).
 * `npx drizzle-kit migrate` applies them to REQLIX_DB_URL (a Turso/sqld URL for a Workers deploy).
 */
export default defineConfig({
  dialect: "turso",
  schema: "./src/db/schema.ts",
  out: "./drizzle",
  dbCredentials: {
    url: process.env.REQLIX_DB_URL ?? "file:.data/reqlix.db",
    ...(process.env.REQLIX_DB_AUTH_TOKEN ? { authToken: process.env.REQLIX_DB_AUTH_TOKEN } : {}),
  },
});
