/**
 * Admin CLI commands for who signs in (issue 12 item 4): `set-password --user U` reads the password from
 * the terminal (not echoed) or from stdin when it is not a terminal, never from the command line (argv is
 * visible to every process on the machine and kept in shell history); `invite --workspace W --email E
 * --role R` prints a single-use link.
 */

import { inviteInput, parseInput } from "../core/admin-input.js";
import { DomainError } from "../core/errors.js";
import { inviteOp, setPasswordOp } from "../db/account-ops.js";
import type { OpContext } from "../db/admin-ops.js";
import type { Database } from "../db/client.js";

export const ACCOUNT_USAGE = `  set-password --user U                           set U's password, read from the terminal or stdin (never
                                                  argv); ends all of U's web sessions
  invite --email E --role R [--workspace S] [--expires-in-hours H] [--base-url URL]
                                                  print a single-use invitation link (default 72 hours)`;

export interface PasswordSource {
  /** Reads one password: from the TTY without echo (asked twice), or the first line of stdin. */
  read(): Promise<string>;
}

/** Reads a password from process.stdin: hidden and confirmed on a terminal, the first line of a pipe. */
export function stdinPasswordSource(prompt: (text: string) => void): PasswordSource {
  return {
    async read() {
      const stdin = process.stdin;
      if (!stdin.isTTY) {
        let text = "";
        for await (const chunk of stdin) text += String(chunk);
        return (text.split(/\r?\n/)[0] ?? "").replace(/\r$/, "");
      }
      const ask = (label: string) =>
        new Promise<string>((resolve, reject) => {
          prompt(label);
          stdin.setRawMode(true);
          stdin.resume();
          let value = "";
          const onData = (data: Buffer) => {
            for (const ch of data.toString("utf8")) {
              if (ch === "\r" || ch === "\n") {
                done();
                prompt("\n");
                resolve(value);
                return;
              }
              if (ch === "\u0003") {
                done();
                reject(new Error("cancelled"));
                return;
              }
              if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
              else value += ch;
            }
          };
          const done = () => {
            stdin.off("data", onData);
            stdin.setRawMode(false);
            stdin.pause();
          };
          stdin.on("data", onData);
        });
      const first = await ask("New password: ");
      const second = await ask("Again: ");
      if (first !== second) {
        throw DomainError.invalid("the passwords differ", [
          { field: "password", message: "the two entries differ" },
        ]);
      }
      return first;
    },
  };
}

export async function runAccountCommand(
  command: string,
  values: Record<string, string | boolean | undefined>,
  database: Database,
  ctx: OpContext,
  io: { env: Record<string, string | undefined>; password?: PasswordSource; err(text: string): void },
): Promise<unknown> {
  if (command === "set-password") {
    const username = values.user ?? values.username;
    if (typeof username !== "string") {
      throw DomainError.invalid("missing options", [{ field: "user", message: "required" }]);
    }
    const source = io.password ?? stdinPasswordSource((text) => io.err(text));
    const password = await source.read();
    return setPasswordOp(database, ctx, { username, password });
  }
  const hours = values["expires-in-hours"];
  const input = parseInput(
    inviteInput,
    {
      ...(values.email !== undefined ? { email: values.email } : {}),
      ...(values.role !== undefined ? { role: values.role } : {}),
      ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
      ...(hours !== undefined
        ? { expires_in_hours: /^\d+$/.test(String(hours)) ? Number(hours) : hours }
        : {}),
    },
    "options",
  );
  const result = await inviteOp(database, ctx, input);
  const base = (
    typeof values["base-url"] === "string" ? values["base-url"] : io.env.REQLIX_PUBLIC_URL
  )?.replace(/\/+$/, "");
  return { ...result, ...(base ? { link: `${base}${result.path}` } : {}) };
}
