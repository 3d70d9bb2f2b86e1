/**
 * The hosted registry over a real migrated libSQL database (`:memory:`), served by the real protocol
 * adapter (`createMcpServer`) to the real SDK Client over the SDK's InMemoryTransport. Members and tokens
 * are made with the same admin operations the API and CLI use.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "../../src/core/auth-info.js";
import type { Role } from "../../src/core/roles.js";
import { addMemberOp, createTokenOp, createWorkspaceOp, type OpContext } from "../../src/db/admin-ops.js";
import { type Database, openDatabase } from "../../src/db/client.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { getUserByUsername } from "../../src/db/users.repo.js";
import { findWorkspaceBySlug } from "../../src/db/workspaces.repo.js";
import type { HostedContext } from "../../src/hosted/context.js";
import { hostedRegistry } from "../../src/hosted/registry.js";
import { compileRegistries } from "../../src/protocol/compile.js";
import { createMcpServer } from "../../src/protocol/mcp-server.js";

export const compiled = compileRegistries([hostedRegistry]);

export interface Harness {
  database: Database;
  /** A member of `workspace` (created as needed) with `role`, and a token of theirs. */
  member(username: string, role: Role, workspace?: string): Promise<AuthInfo>;
  /** A connected SDK client acting as `auth`. */
  connect(auth: AuthInfo): Promise<Client>;
  /** A handler context acting as `auth` (for calling repositories and handlers directly). */
  context(auth: AuthInfo): HostedContext;
  /** Fixes the clock (`undefined`: real time again). */
  setNow(date: Date | undefined): void;
  close(): Promise<void>;
}

export async function createHarness(): Promise<Harness> {
  const database = await openDatabase({ url: ":memory:" });
  await migrateDatabase(database);
  const cli: OpContext = { actor: { kind: "cli" }, now: new Date() };
  let fixed: Date | undefined;
  const clients: Client[] = [];
  const now = () => fixed ?? new Date();

  const context = (auth: AuthInfo): HostedContext => ({
    auth,
    database,
    requestId: "test",
    now,
    signal: new AbortController().signal,
    progress: async () => {},
  });

  return {
    database,
    async member(username, role, workspace = "default") {
      if (!(await database.read((db) => findWorkspaceBySlug(db, workspace)))) {
        await createWorkspaceOp(database, cli, { slug: workspace, name: workspace });
      }
      await addMemberOp(database, cli, { username, role, workspace });
      const token = await createTokenOp(database, cli, { username, name: "test", workspace });
      const user = await database.read((db) => getUserByUsername(db, username));
      const ws = await database.read((db) => findWorkspaceBySlug(db, workspace));
      if (!ws) throw new Error("workspace vanished");
      return {
        userId: user.id,
        username: user.username,
        workspaceId: ws.id,
        workspaceSlug: ws.slug,
        role,
        tokenId: token.id,
        isOwner: false,
      };
    },
    async connect(auth) {
      const server = createMcpServer<HostedContext>({
        name: "reqlix-test",
        version: "0.0.0-test",
        compiled,
        context: (base) => ({ ...context(auth), ...base }),
        onInternalError(error) {
          throw error; // a test must see an internal error, not a generic text
        },
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: "test", version: "0" });
      await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
      clients.push(client);
      return client;
    },
    context,
    setNow(date) {
      fixed = date;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await database.close();
    },
  };
}

/** Calls a tool and returns its result; `isError` results are returned, not thrown. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function text(result: CallToolResult): string {
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("no text content");
  return first.text;
}

/** Calls a tool that must succeed and returns its structured content. */
export async function ok<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${text(result)}`);
  if (!result.structuredContent) throw new Error(`${name} returned no structuredContent`);
  return result.structuredContent as T;
}

/** Calls a tool that must fail and returns the text the model reads. */
export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<string> {
  const result = await call(client, name, args);
  if (!result.isError) throw new Error(`${name} succeeded but should have failed: ${text(result)}`);
  return text(result);
}
