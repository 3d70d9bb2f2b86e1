import type { BaseContext } from "../core/registry.js";

/** What a companion tool handler gets: the request's signal and progress, plus the process's surroundings. */
export interface LocalContext extends BaseContext {
  /** The working directory the companion was started in. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Diagnostics go to stderr only: stdout is the protocol stream. */
  log(message: string, fields?: Record<string, unknown>): void;
}

export interface LocalEnvironment {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  log(message: string, fields?: Record<string, unknown>): void;
}
