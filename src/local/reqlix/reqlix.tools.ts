/**
 * The `reqlix` toolset of the stdio companion. Every answer is JSON text (G.C.5): `{"success":true,
 * "data":…}`, or `{"success":false,"error":"…"}` (G.C.6) for every failure, argument validation included
 * (G.P.2).
 */
import type { DomainError } from "../../core/errors.js";
import type { Registry, RenderedResult } from "../../core/registry.js";
import { bridgeTools } from "../bridge/bridge.tools.js";
import type { LocalContext, LocalEnvironment } from "../context.js";
import { INSTRUCTIONS } from "./descriptions.js";
import { reqlixTools } from "./requirements.tools.js";

export function renderSuccess(output: unknown): RenderedResult {
  return { text: JSON.stringify({ success: true, data: output }) };
}

export function renderError(error: DomainError): RenderedResult {
  return { text: JSON.stringify({ success: false, error: error.message }) };
}

export function reqlixRegistry(_env: LocalEnvironment): Registry<LocalContext> {
  return {
    name: "reqlix",
    tools: [...reqlixTools, ...bridgeTools],
    instructions: INSTRUCTIONS,
    renderResult: renderSuccess,
    renderError,
  };
}
