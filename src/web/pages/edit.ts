/**
 * Create and edit forms for epics, user stories, requirements and acceptance criteria. Each submit calls
 * the registry's create_* / update_* tool (audited and versioned there). An edit carries the revision and
 * updated_at the form was rendered from: when the entity moved on, the edit is refused (409) and the page
 * shows what changed since (diff_revisions) next to the form with the user's text kept; the tool's own
 * expected_updated_at check refuses a change that slips in between.
 */
import { html } from "hono/html";
import { DomainError } from "../../core/errors.js";
import { PRIORITY_OPTIONS, select, textArea, textInput } from "../forms.js";
import { csrfField, type Html, notice } from "../layout.js";
import type { PageContext } from "../page.js";
import type { PageModule } from "../routes.js";
import { hrefOf } from "../view.js";
import { diffView } from "./entity-parts.js";
import { type Diff, ENTITY_STATUSES, REQUIREMENT_STATUSES } from "./shapes.js";

type Kind = "epic" | "story" | "requirement" | "criterion";

interface FieldSpec {
  name: string;
  label: string;
  control: "text" | "textarea" | "select";
  options?: (p: PageContext) => Promise<(string | [string, string])[]>;
  required?: boolean;
  /** Only on the edit form (status: a new entity starts as Draft/Backlog). */
  editOnly?: boolean;
  /** Only on the create form. */
  createOnly?: boolean;
  numeric?: boolean;
  /** Empty means "remove" on edit (assignee). */
  clearable?: boolean;
}

interface Spec {
  label: string;
  base: string;
  idArg: string;
  parent?: { arg: string; query: string; label: string };
  get: (p: PageContext, id: string) => Promise<Record<string, unknown>>;
  create: string;
  update: string;
  fields: FieldSpec[];
}

const types = async (p: PageContext) =>
  (await p.read<{ types: { name: string }[] }>("list_requirement_types", {})).types.map((t) => t.name);

const TITLE: FieldSpec = { name: "title", label: "Title", control: "text", required: true };
const DESCRIPTION: FieldSpec = { name: "description", label: "Description (markdown)", control: "textarea" };
const PRIORITY: FieldSpec = {
  name: "priority",
  label: "Priority",
  control: "select",
  options: async () => PRIORITY_OPTIONS,
  numeric: true,
};
const ASSIGNEE: FieldSpec = {
  name: "assignee",
  label: "Assignee (username)",
  control: "text",
  clearable: true,
};
const workStatus: FieldSpec = {
  name: "status",
  label: "Status",
  control: "select",
  options: async () => ENTITY_STATUSES,
  editOnly: true,
};

const SPECS: Record<Kind, Spec> = {
  epic: {
    label: "epic",
    base: "/epics",
    idArg: "epic_id",
    get: (p, id) => p.read("get_epic", { epic_id: id }),
    create: "create_epic",
    update: "update_epic",
    fields: [TITLE, DESCRIPTION, PRIORITY, workStatus, ASSIGNEE],
  },
  story: {
    label: "user story",
    base: "/stories",
    idArg: "user_story_id",
    parent: { arg: "epic_id", query: "epic", label: "Epic" },
    get: (p, id) => p.read("get_user_story", { user_story_id: id, limit: 1 }),
    create: "create_user_story",
    update: "update_user_story",
    fields: [TITLE, DESCRIPTION, PRIORITY, workStatus, ASSIGNEE],
  },
  requirement: {
    label: "requirement",
    base: "/requirements",
    idArg: "requirement_id",
    parent: { arg: "user_story_id", query: "story", label: "User story" },
    get: (p, id) => p.read("get_requirement", { requirement_id: id }),
    create: "create_requirement",
    update: "update_requirement",
    fields: [
      TITLE,
      DESCRIPTION,
      { name: "type", label: "Type", control: "select", options: types, required: true },
      PRIORITY,
      {
        name: "status",
        label: "Status",
        control: "select",
        options: async () => REQUIREMENT_STATUSES,
        editOnly: true,
      },
      ASSIGNEE,
    ],
  },
  criterion: {
    label: "acceptance criterion",
    base: "/criteria",
    idArg: "acceptance_criteria_id",
    parent: { arg: "user_story_id", query: "story", label: "User story" },
    // No get tool for a single criterion: its latest revision's snapshot is the criterion as the tools show it.
    get: async (p, id) => {
      const page = await p.read<{ items: { snapshot: Record<string, unknown>; op: string }[] }>(
        "get_history",
        { id, limit: 1 },
      );
      const latest = page.items[0];
      if (
        !latest ||
        latest.op === "delete" ||
        !String(latest.snapshot.reference_id ?? "").startsWith("AC-")
      ) {
        throw DomainError.notFound(`Acceptance criterion ${id} not found.`, id);
      }
      return latest.snapshot;
    },
    create: "create_acceptance_criteria",
    update: "update_acceptance_criteria",
    fields: [
      { name: "title", label: "Title (default: the first line)", control: "text" },
      { name: "description", label: "Criterion (markdown)", control: "textarea", required: true },
    ],
  },
};

/** The value a form field shows for an entity's field. */
function shown(entity: Record<string, unknown>, field: string): string {
  const key = field === "type" ? "type_name" : field === "assignee" ? "assignee_username" : field;
  const v = entity[key];
  return v === null || v === undefined ? "" : String(v);
}

async function formBody(
  p: PageContext,
  spec: Spec,
  action: string,
  values: Record<string, string>,
  mode: "create" | "edit",
  hidden: Record<string, string>,
): Promise<Html> {
  const controls: Html[] = [];
  for (const f of spec.fields) {
    if ((f.editOnly && mode === "create") || (f.createOnly && mode === "edit")) continue;
    if (f.control === "textarea") controls.push(textArea(f.name, f.label, values[f.name]));
    else if (f.control === "select" && f.options) {
      controls.push(
        html`<div>${select(f.name, f.label, await f.options(p), values[f.name], f.required ? undefined : mode === "create" ? "Default" : undefined)}</div>`,
      );
    } else
      controls.push(
        textInput(f.name, f.label, values[f.name], { required: f.required ?? false, maxlength: 200 }),
      );
  }
  return html`<form method="post" action="${action}" class="stack" data-guard>${csrfField(p.csrf)}
${Object.entries(hidden).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
${controls}
${textInput("change_note", "Why (change note, optional)", values.change_note, { maxlength: 500 })}
<div><button type="submit">${mode === "create" ? `Create ${spec.label}` : "Save"}</button></div></form>`;
}

function argsFrom(
  spec: Spec,
  form: Record<string, string>,
  mode: "create" | "edit",
  current?: Record<string, unknown>,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const f of spec.fields) {
    if ((f.editOnly && mode === "create") || (f.createOnly && mode === "edit")) continue;
    const raw = form[f.name];
    if (raw === undefined) continue;
    const value = raw.replace(/\r\n/g, "\n");
    if (mode === "edit" && current && value === shown(current, f.name)) continue; // unchanged: not sent
    if (value === "") {
      if (mode === "edit" && f.clearable) args[f.name] = null;
      else if (mode === "edit" && f.name === "description") args[f.name] = "";
      continue;
    }
    args[f.name] = f.numeric ? Number(value) : value;
  }
  if (form.change_note?.trim()) args.change_note = form.change_note.trim();
  return args;
}

function invalidNotice(error: DomainError): Html {
  const errors = error.details.errors ?? [];
  return notice(
    "error",
    errors.length > 0
      ? html`${error.code === "invalid_input" ? "Check these fields:" : error.message}<ul>${errors.map((e) => html`<li><strong>${e.field}</strong>: ${e.message}</li>`)}</ul>`
      : error.message,
  );
}

/** The edit forms are for editors; the tools refuse a viewer's submit anyway, this spares the typing. */
function needsEditor(p: PageContext): DomainError {
  return DomainError.forbidden(
    `Forbidden: editing needs the editor role; your role in workspace "${p.auth.workspaceSlug}" is ${p.auth.role}.`,
  );
}

function register(pages: Parameters<PageModule>[0], kind: Kind): void {
  const spec = SPECS[kind];
  const newPath = `${spec.base}/new`;

  pages.get(newPath, async (p) => {
    if (!p.canEdit) return p.failed(needsEditor(p));
    const parent = spec.parent ? (p.query(spec.parent.query) ?? "") : "";
    const hidden: Record<string, string> = spec.parent ? { [spec.parent.arg]: parent } : {};
    const intro = spec.parent ? html`<p>${spec.parent.label}: <span class="ref">${parent}</span></p>` : "";
    return p.page(
      `New ${spec.label}`,
      html`<h1>New ${spec.label}</h1>${intro}${await formBody(p, spec, newPath, {}, "create", hidden)}`,
    );
  });

  pages.post(newPath, async (p) => {
    const form = await p.form();
    const args = argsFrom(spec, form, "create");
    if (spec.parent) args[spec.parent.arg] = form[spec.parent.arg] ?? "";
    const done = await p.call<{ reference_id: string }>(spec.create, args);
    if (done.ok)
      return p.redirect(
        kind === "criterion" ? hrefOf(String(args.user_story_id)) : hrefOf(done.value.reference_id),
      );
    const hidden: Record<string, string> = spec.parent
      ? { [spec.parent.arg]: form[spec.parent.arg] ?? "" }
      : {};
    return p.page(
      `New ${spec.label}`,
      html`<h1>New ${spec.label}</h1>${invalidNotice(done.error)}${await formBody(p, spec, newPath, form, "create", hidden)}`,
      {
        status:
          done.error.code === "invalid_input"
            ? 400
            : done.error.code === "forbidden"
              ? 403
              : done.error.code === "not_found"
                ? 404
                : 409,
      },
    );
  });

  const editPath = `${spec.base}/:id/edit`;
  pages.get(editPath, async (p) => {
    if (!p.canEdit) return p.failed(needsEditor(p));
    const entity = await spec.get(p, p.param("id"));
    const ref = String(entity.reference_id);
    const values: Record<string, string> = {};
    for (const f of spec.fields) values[f.name] = shown(entity, f.name);
    const hidden = { revision: String(entity.revision), updated_at: String(entity.updated_at) };
    return p.page(
      `Edit ${ref}`,
      html`<h1>Edit <a href="${hrefOf(ref)}" class="ref">${ref}</a></h1>${await formBody(p, spec, `${spec.base}/${encodeURIComponent(ref)}/edit`, values, "edit", hidden)}`,
    );
  });

  pages.post(editPath, async (p) => {
    const form = await p.form();
    const current = await spec.get(p, p.param("id"));
    const ref = String(current.reference_id);
    const action = `${spec.base}/${encodeURIComponent(ref)}/edit`;
    const formRevision = Number(form.revision);
    const conflict = async (message: string) => {
      const diff = await p.call<Diff>("diff_revisions", {
        id: ref,
        from: formRevision,
        to: Number(current.revision),
      });
      const hidden = { revision: String(current.revision), updated_at: String(current.updated_at) };
      return p.page(
        `Conflict: ${ref}`,
        html`<h1>Edit <a href="${hrefOf(ref)}" class="ref">${ref}</a></h1>
${notice("error", html`${message} Your edit was not saved. Below is what changed since you opened the form; your text is kept in the form, now based on revision ${String(current.revision)}: check it and save again.`)}
<section aria-labelledby="changed"><h2 id="changed">What changed since revision ${String(formRevision)}</h2>${diff.ok ? diffView(diff.value) : notice("error", diff.error.message)}</section>
${await formBody(p, spec, action, form, "edit", hidden)}`,
        { status: 409 },
      );
    };
    if (!Number.isInteger(formRevision) || formRevision < 1)
      return p.page("Edit", notice("error", "The form lacks its revision: reload the edit page."), {
        status: 400,
      });
    if (Number(current.revision) !== formRevision) {
      return conflict(
        `${ref} changed since you opened this form (revision ${formRevision} → ${String(current.revision)}).`,
      );
    }
    const args = argsFrom(spec, form, "edit", current);
    const changes = Object.keys(args).filter((k) => k !== "change_note");
    if (changes.length === 0) return p.redirect(`${hrefOf(ref)}?unchanged=1`);
    const done = await p.call(spec.update, {
      [spec.idArg]: ref,
      ...args,
      expected_updated_at: form.updated_at ?? "",
    });
    if (done.ok)
      return p.redirect(kind === "criterion" ? hrefOf(String(current.user_story_id)) : hrefOf(ref));
    if (done.error.code === "conflict" && done.error.details.updated_at !== undefined) {
      const moved = await spec.get(p, ref);
      current.revision = moved.revision;
      current.updated_at = moved.updated_at;
      return conflict(done.error.message);
    }
    const hidden = { revision: String(current.revision), updated_at: String(current.updated_at) };
    return p.page(
      `Edit ${ref}`,
      html`<h1>Edit <a href="${hrefOf(ref)}" class="ref">${ref}</a></h1>${invalidNotice(done.error)}${await formBody(p, spec, action, form, "edit", hidden)}`,
      { status: done.error.code === "invalid_input" ? 400 : done.error.code === "forbidden" ? 403 : 409 },
    );
  });
}

export const editPages: PageModule = (pages) => {
  for (const kind of Object.keys(SPECS) as Kind[]) register(pages, kind);
  // A criterion has no page of its own: it is shown on its story's page (after `/criteria/new` above).
  pages.get("/criteria/:id", async (p) => {
    const criterion = await SPECS.criterion.get(p, p.param("id"));
    return p.redirect(`${hrefOf(String(criterion.user_story_id))}#criteria`);
  });
};
