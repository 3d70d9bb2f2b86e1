/** Comments and verdicts on any entity (add_comment, approve, request_changes), back to its page. */
import type { PageModule } from "../routes.js";
import { hrefOf } from "../view.js";

export const reviewPages: PageModule = (pages) => {
  pages.post("/comments", async (p) => {
    const form = await p.form();
    const id = (form.id ?? "").trim().toUpperCase();
    const done = await p.call("add_comment", { id, text: form.text ?? "" });
    if (!done.ok) return p.failed(done.error, "Comment not added");
    return p.redirect(`${hrefOf(id)}#comments`);
  });

  pages.post("/verdicts", async (p) => {
    const form = await p.form();
    const id = (form.id ?? "").trim().toUpperCase();
    const revision = Number(form.revision);
    const comment = (form.comment ?? "").trim();
    const done =
      form.verdict === "changes_requested"
        ? await p.call("request_changes", { id, revision, comment })
        : await p.call("approve", { id, revision });
    if (!done.ok) return p.failed(done.error, "Verdict not recorded");
    return p.redirect(`${hrefOf(id)}#approvals`);
  });
};
