/**
 * The checks a client's answer passes before a handler sees it (protocol/input-answers.ts): an accepted
 * elicitation against MCP's restricted flat schema, every field named; sampling and roots shapes.
 */
import { describe, expect, it } from "vitest";
import type { InputRequest } from "../../src/core/registry.js";
import { answerProblems } from "../../src/protocol/input-answers.js";

const form: InputRequest = {
  method: "elicitation/create",
  params: {
    message: "Tell us",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", minLength: 2, maxLength: 5 },
        email: { type: "string", format: "email" },
        size: { type: "string", enum: ["S", "M"] },
        level: { type: "string", oneOf: [{ const: "low", title: "Low" }] },
        age: { type: "integer", minimum: 0, maximum: 150 },
        ratio: { type: "number", maximum: 1 },
        agree: { type: "boolean" },
        tags: { type: "array", items: { enum: ["a", "b"] }, maxItems: 1 },
      },
      required: ["name"],
    },
  },
};

const fields = (content: Record<string, unknown>) =>
  answerProblems("q", form, { action: "accept", content }).map((p) => `${p.field}: ${p.message}`);

describe("an elicitation answer", () => {
  it("that fits passes, and a decline or cancel carries no content to check", () => {
    expect(
      fields({
        name: "Ada",
        email: "a@b.c",
        size: "M",
        level: "low",
        age: 3,
        ratio: 0.5,
        agree: true,
        tags: ["a"],
      }),
    ).toEqual([]);
    expect(answerProblems("q", form, { action: "decline" })).toEqual([]);
    expect(answerProblems("q", form, { action: "cancel" })).toEqual([]);
  });

  it("is refused field by field, each named under inputResponses.<key>.content", () => {
    expect(
      fields({
        email: "nope",
        size: "L",
        level: "high",
        age: 2.5,
        ratio: 2,
        agree: "yes",
        tags: ["a", "c"],
        x: 1,
      }),
    ).toEqual([
      "inputResponses.q.content.name: Required",
      "inputResponses.q.content.email: not a valid email",
      "inputResponses.q.content.size: expected one of S, M",
      "inputResponses.q.content.level: expected one of low",
      "inputResponses.q.content.age: expected an integer",
      "inputResponses.q.content.ratio: must be at most 1",
      "inputResponses.q.content.agree: expected true or false",
      "inputResponses.q.content.tags: not among the choices: c",
      "inputResponses.q.content.x: not asked for",
    ]);
    expect(fields({ name: "A" })).toEqual(["inputResponses.q.content.name: must have at least 2 characters"]);
    expect(fields({ name: "Adalbert" })).toEqual([
      "inputResponses.q.content.name: must have at most 5 characters",
    ]);
  });

  it("without a known action, or accepted without content, is refused", () => {
    expect(answerProblems("q", form, { action: "maybe" })[0]?.field).toBe("inputResponses.q.action");
    expect(answerProblems("q", form, { action: "accept" })[0]?.field).toBe("inputResponses.q.content");
  });
});

describe("sampling and roots answers", () => {
  const sampling: InputRequest = { method: "sampling/createMessage", params: { messages: [], maxTokens: 5 } };
  const roots: InputRequest = { method: "roots/list", params: {} };

  it("need a role and content, or a list of roots with uris", () => {
    expect(
      answerProblems("s", sampling, { role: "assistant", content: { type: "text", text: "hi" }, model: "m" }),
    ).toEqual([]);
    expect(answerProblems("s", sampling, { text: "hi" }).map((p) => p.field)).toEqual([
      "inputResponses.s.role",
    ]);
    expect(answerProblems("r", roots, { roots: [{ uri: "file:///x" }] })).toEqual([]);
    expect(answerProblems("r", roots, { roots: [{ name: "x" }] }).map((p) => p.field)).toEqual([
      "inputResponses.r.roots",
    ]);
  });
});
