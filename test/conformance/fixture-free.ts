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
