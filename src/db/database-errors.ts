/**
 * One line for a database that cannot be used, naming the cause and the fix (issue item 10): what
 * `npm start` prints instead of a stack trace when opening, probing or migrating the database fails, and
 * the reason `/healthz` gives with its 503.
 */

/** The errors of `err`'s cause chain, outermost first (drizzle and fetch wrap the one that says why). */
function chain(err: unknown): { code?: string; message: string; syscall?: string; path?: string }[] {
  const out: { code?: string; message: string; syscall?: string; path?: string }[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    if (typeof e !== "object") {
      out.push({ message: String(e) });
      break;
    }
    const o = e as { code?: unknown; message?: unknown; syscall?: unknown; path?: unknown; cause?: unknown };
    out.push({
      ...(typeof o.code === "string" ? { code: o.code } : {}),
      message: typeof o.message === "string" ? o.message : "",
      ...(typeof o.syscall === "string" ? { syscall: o.syscall } : {}),
      ...(typeof o.path === "string" ? { path: o.path } : {}),
    });
    e = o.cause;
  }
  return out;
}

const FS_REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  ENOENT: "a parent cannot be created here",
};

/** Why the database cannot be used, in a few words (no secrets: never the URL's query or credentials). */
export function databaseProblem(err: unknown): { reason: string; fix: string } {
  const errors = chain(err);
  const codes = errors.map((e) => e.code ?? "");
  const text = errors.map((e) => e.message).join(" | ");
  const fs = errors.find((e) => e.syscall === "mkdir");
  if (fs) {
    const notFolder = fs.code === "ENOTDIR" || fs.code === "EEXIST";
    return {
      reason: notFolder
        ? `its folder cannot be created: ${fs.path ?? "a parent"} is a file, not a folder`
        : `its folder ${fs.path ?? ""} cannot be created (${FS_REASONS[fs.code ?? ""] ?? fs.code ?? fs.message})`,
      fix: "point REQLIX_DB_URL at a file in a folder this user can create and write (e.g. file:.data/reqlix.db)",
    };
  }
  if (codes.some((c) => c.startsWith("SQLITE_READONLY")) || /readonly database|read-only/i.test(text)) {
    return {
      reason: "the database is read-only (the file, its folder or its file system cannot be written)",
      fix: "make the file and its folder writable by this user, or point REQLIX_DB_URL at a writable database",
    };
  }
  if (
    codes.some((c) => c.startsWith("SQLITE_CANTOPEN")) ||
    /Unable to open connection to local database|unable to open database/i.test(text)
  ) {
    return {
      reason:
        "the database file cannot be created or opened (no write access to its folder, or not a regular file)",
      fix: "point REQLIX_DB_URL at a file in a folder this user can write (e.g. file:.data/reqlix.db)",
    };
  }
  if (codes.some((c) => c.startsWith("SQLITE_NOTADB")) || /file is not a database/i.test(text)) {
    return {
      reason: "the file is not a SQLite database",
      fix: "point REQLIX_DB_URL at a reqlix database, or at a new file to start an empty one",
    };
  }
  const net = codes.find((c) =>
    ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNRESET", "EHOSTUNREACH"].includes(c),
  );
  if (net || /fetch failed|WebSocket|ECONNREFUSED/i.test(text)) {
    const why: Record<string, string> = {
      ECONNREFUSED: "connection refused",
      ENOTFOUND: "host name not found",
      EAI_AGAIN: "host name lookup failed",
      ETIMEDOUT: "connection timed out",
      ECONNRESET: "connection reset",
      EHOSTUNREACH: "host unreachable",
    };
    return {
      reason: `the database server cannot be reached (${(net && why[net]) ?? "network error"})`,
      fix: "start the server (sqld) or correct the host and port in REQLIX_DB_URL",
    };
  }
  if (/\b(401|403)\b|unauthori[sz]ed|forbidden|auth/i.test(text)) {
    return {
      reason: "the database server refused the credentials",
      fix: "set REQLIX_DB_AUTH_TOKEN to a valid token for this database",
    };
  }
  const first = (errors.at(-1)?.message || errors[0]?.message || "unknown error").split("\n")[0] ?? "";
  return {
    reason: first.slice(0, 200),
    fix: "check REQLIX_DB_URL (and REQLIX_DB_AUTH_TOKEN for a remote database)",
  };
}

/** The start-up line: `REQLIX_DB_URL <shown url>: <reason>. Fix: <fix>.` */
export function describeDatabaseError(err: unknown, shownUrl: string): string {
  const { reason, fix } = databaseProblem(err);
  return `REQLIX_DB_URL ${shownUrl}: ${reason}. Fix: ${fix}.`;
}
