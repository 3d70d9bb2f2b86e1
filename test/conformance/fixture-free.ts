/** Conformance scenarios that call no fixture: they must pass against the production registry too. */
export const FIXTURE_FREE = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
];

/** The same for 2026-07-28 (run with `--spec-version 2026-07-28`): the revision's own wire rules. */
export const FIXTURE_FREE_MODERN = [
  "tools-list",
  "resources-list",
  "prompts-list",
  "caching",
  "http-header-validation",
  "sep-2164-resource-not-found",
];
