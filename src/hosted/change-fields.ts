/** The two arguments every write tool under change control takes (appended by `hostedTool`). */
import * as z from "zod";

export const changeFields = () => ({
  change_note: z
    .string()
    .trim()
    .min(1, "must not be empty; omit change_note instead")
    .max(2_000)
    .optional()
    .describe("Why, in a sentence; kept in the history."),
  source: z
    .string()
    .trim()
    .min(1, "must not be empty; omit source instead")
    .max(500)
    .optional()
    .describe("Where the change came from (URL, meeting, ticket); kept in the history."),
});

export interface ChangeFields {
  change_note?: string;
  source?: string;
}
