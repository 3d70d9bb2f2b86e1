/** AGENTS.md placeholder (G.GI.6) and the generated `# Categories` chapter (G.GI.7). */

/** G.GI.6, verbatim; `{requirements_directory}` is replaced with the directory relative to the project root. */
const PLACEHOLDER = `# Instructions

These instructions are mandatory for all code operations:

1. Always verify that code matches requirements. If there are discrepancies, propose to the user
   to fix either the code or the requirements.

2. Make maximum effort to find relevant requirements for the code being modified and apply changes
   according to those requirements.

3. Document code thoroughly by leaving references to requirement indices in comments.
   Requirement index format: \`{CATEGORY}.{CHAPTER}.{NUMBER}\` (e.g., \`G.GI.1\`, \`T.U.2\`).

4. All requirements must be written in English.

5. Never edit files in {requirements_directory} directly. Always use this MCP server for all
   requirements operations.

`;

export function agentsPlaceholder(requirementsDirectory: string): string {
  return PLACEHOLDER.replace("{requirements_directory}", requirementsDirectory);
}

/**
 * G.GI.7: AGENTS.md content, then the `# Categories` chapter generated at run time (never stored),
 * separated by one blank line. With no category yet the chapter says so instead of an empty list.
 */
export function withCategories(agents: string, categories: string[]): string {
  const list = categories.length > 0 ? categories.map((c) => `- ${c}`).join("\n") : "No categories yet.";
  const head = agents.replace(/\s+$/, "");
  return `${head.length > 0 ? `${head}\n\n` : ""}# Categories\n\n${list}`;
}
