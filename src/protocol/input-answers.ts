/**
 * Checks the client's answer to an input request before a handler sees it: the client is not trusted to
 * send what was asked. An elicitation's accepted content is checked against the requested schema, which
 * MCP restricts to a flat object of primitive properties (string with length, format or enum; number and
 * integer with bounds; boolean; an array of enum values for multi-select). That subset is checked here,
 * in a few lines that run anywhere: the SDK's validators either compile code (`new Function`, which
 * workerd forbids) or cost the Worker ~6 KiB gzip for a general JSON Schema engine this subset does not need.
 */
import type { FieldError } from "../core/errors.js";
import type { InputAnswer, InputRequest } from "../core/registry.js";

type Schema = Record<string, unknown>;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The problems of `answer` as an answer to `request` (empty: fine), each naming the field. */
export function answerProblems(key: string, request: InputRequest, answer: InputAnswer): FieldError[] {
  const at = (field: string, message: string): FieldError => ({
    field: `inputResponses.${key}${field ? `.${field}` : ""}`,
    message,
  });
  switch (request.method) {
    case "elicitation/create": {
      const action = answer.action;
      if (action !== "accept" && action !== "decline" && action !== "cancel")
        return [at("action", 'expected "accept", "decline" or "cancel"')];
      if (action !== "accept") return [];
      if (!isObject(answer.content)) return [at("content", "expected an object (the accepted form)")];
      return contentProblems(request.params.requestedSchema, answer.content).map((p) =>
        at(`content${p.field ? `.${p.field}` : ""}`, p.message),
      );
    }
    case "sampling/createMessage":
      if (answer.role !== "assistant" && answer.role !== "user") return [at("role", 'expected "assistant"')];
      if (!isObject(answer.content) && !Array.isArray(answer.content))
        return [at("content", "expected a content block")];
      return [];
    case "roots/list":
      if (
        !Array.isArray(answer.roots) ||
        !answer.roots.every((r) => isObject(r) && typeof r.uri === "string")
      )
        return [at("roots", "expected a list of roots, each with a uri")];
      return [];
  }
}

function contentProblems(schema: Schema, content: Record<string, unknown>): FieldError[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const problems: FieldError[] = [];
  for (const name of required)
    if (content[name] === undefined) problems.push({ field: name, message: "Required" });
  for (const [name, value] of Object.entries(content)) {
    const property = properties[name];
    if (!isObject(property)) {
      problems.push({ field: name, message: "not asked for" });
      continue;
    }
    const message = valueProblem(property, value);
    if (message) problems.push({ field: name, message });
  }
  return problems;
}

const FORMATS: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S*$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

function allowedValues(schema: Schema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  const options = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : [];
  const consts = options.filter(isObject).map((o) => o.const);
  return consts.length > 0 ? consts : undefined;
}

function valueProblem(schema: Schema, value: unknown): string | undefined {
  const number = (n: unknown, what: string) => {
    if (typeof n !== "number" || !Number.isFinite(n)) return `expected ${what}`;
    if (typeof schema.minimum === "number" && n < schema.minimum) return `must be at least ${schema.minimum}`;
    if (typeof schema.maximum === "number" && n > schema.maximum) return `must be at most ${schema.maximum}`;
    return undefined;
  };
  switch (schema.type) {
    case "string": {
      if (typeof value !== "string") return "expected a string";
      const allowed = allowedValues(schema);
      if (allowed && !allowed.includes(value)) return `expected one of ${allowed.map(String).join(", ")}`;
      if (typeof schema.minLength === "number" && value.length < schema.minLength)
        return `must have at least ${schema.minLength} characters`;
      if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
        return `must have at most ${schema.maxLength} characters`;
      const format = typeof schema.format === "string" ? FORMATS[schema.format] : undefined;
      if (format && !format.test(value)) return `not a valid ${schema.format}`;
      return undefined;
    }
    case "integer":
      return Number.isInteger(value) ? number(value, "an integer") : "expected an integer";
    case "number":
      return number(value, "a number");
    case "boolean":
      return typeof value === "boolean" ? undefined : "expected true or false";
    case "array": {
      if (!Array.isArray(value)) return "expected a list";
      const allowed = isObject(schema.items) ? allowedValues(schema.items) : undefined;
      const stray = allowed ? value.filter((v) => !allowed.includes(v)) : [];
      if (stray.length > 0) return `not among the choices: ${stray.map(String).join(", ")}`;
      if (typeof schema.minItems === "number" && value.length < schema.minItems)
        return `choose at least ${schema.minItems}`;
      if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
        return `choose at most ${schema.maxItems}`;
      return undefined;
    }
    default:
      return undefined; // not a type the restricted schema has: nothing to hold the answer to
  }
}
