/**
 * The real app over a fresh, migrated libSQL database in a temp file, with the bootstrap done
 * (workspace `default`, owner `admin` with `ownerToken`). Every log line is kept in `logs`.
 * Shared by the http, hosted and e2e tests: keep this interface stable.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hono } from "hono";
import { type CreateAppDeps, createApp } from "../../src/app.js";
import type { Role } from "../../src/core/roles.js";
import { addMemberOp, createTokenOp, createWorkspaceOp } from "../../src/db/admin-ops.js";
import { bootstrap } from "../../src/db/bootstrap.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { findWorkspaceBySlug } from "../../src/db/workspaces.repo.js";
import type { AppEnv } from "../../src/http/context.js";
import { createJsonLogger } from "../../src/http/logger.js";

export interface TestApp {
  app: Hono<AppEnv>;
  database: Database;
  /** `file:` URL of the database (for a second process or connection). */
  dbUrl: string;
  /** Temp folder holding the database; removed by close(). */
  dir: string;
  /** Token of the instance owner `admin` (role admin in workspace `default`). */
  ownerToken: string;
  /** Id of workspace `default`. */
  workspaceId: number;
  /** JSON log lines written by the app so far. */
  logs: string[];
  /**
   * A fresh token for `username` with `role` in `workspace` (default `default`); creates the workspace,
   * the user and the membership as needed (and sets the role if the member exists).
   */
  createToken(username: string, role: Role, workspace?: string): Promise<string>;
  close(): Promise<void>;
}

export async function createTestApp(overrides: Partial<CreateAppDeps> = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), "reqlix-app-"));
  const dbUrl = `file:${join(dir, "reqlix.db")}`;
  const database = await openDatabase({ url: dbUrl });
  await migrateDatabase(database);
  const boot = await bootstrap(database);
  if (!boot.created) throw new Error("fresh database was not bootstrapped");
  const logs: string[] = [];
  const logger = createJsonLogger({ write: (line) => logs.push(line), level: "debug" });
  // Every toolset by default: the suites exercise every tool; the default toolsets have their own tests
  // (test/http/faces/toolsets.test.ts pass `defaultToolsets: "default"`).
  const app = createApp({ database, logger, version: "0.0.0-test", defaultToolsets: "all", ...overrides });
  const cli = { actor: { kind: "cli" as const }, now: new Date() };
  const defaultWs = await database.read((db) => findWorkspaceBySlug(db, "default"));
  if (!defaultWs) throw new Error("bootstrap created no default workspace");

  return {
    app,
    database,
    dbUrl,
    dir,
    ownerToken: boot.token,
    workspaceId: defaultWs.id,
    logs,
    async createToken(username, role, workspace = "default") {
      const ctx = { ...cli, now: new Date() };
      if (!(await database.read((db) => findWorkspaceBySlug(db, workspace)))) {
        await createWorkspaceOp(database, ctx, { slug: workspace, name: workspace });
      }
      await addMemberOp(database, ctx, { username, role, workspace });
      const created = await createTokenOp(database, ctx, { username, name: `test ${role}`, workspace });
      return created.token;
    },
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
