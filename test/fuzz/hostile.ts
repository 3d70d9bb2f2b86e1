/**
 * fast-check arbitraries for hostile request bodies against the MCP faces (`/mcp`, `/api/v1/mcp`).
 * The surface (tools and their input schemas, resource templates, prompts) is read from the running
 * server, so a new tool, resource or prompt is fuzzed without touching this file.
 */
import fc from "fast-check";

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  [key: string]: unknown;
}

export interface Surface {
  tools: { name: string; inputSchema: JsonSchema }[];
  resourceTemplates: string[];
  prompts: { name: string; arguments?: { name: string; required?: boolean }[] }[];
  /** Reference ids that exist only in the other workspace (the victim). */
  foreignIds: string[];
}

/** One generated request: the raw body bytes, and what kind of input it is (for failure messages). */
export interface HostileBody {
  kind: string;
  bytes: Uint8Array;
}

const encoder = new TextEncoder();

/** Strings that have broken SQL, paths, shells, templates and parsers elsewhere. */
export const META_STRINGS = [
  "' OR '1'='1",
  "'; DROP TABLE requirements; --",
  '" OR 1=1 --',
  "1; DELETE FROM epics WHERE 1=1",
  "%",
  "_",
  "%' AND workspace_id = 2 --",
  "\\",
  "\\'",
  "NULL",
  "null",
  "undefined",
  "*",
  'requirement* OR "',
  'NEAR("a" "b")',
  "title:secret",
  '^ " ( ) : * -',
  "../../../../etc/passwd",
  "..\\..\\windows\\system32",
  "/etc/passwd",
  "C:\\Windows\\win.ini",
  "file:///etc/passwd",
  "\u0000",
  "a\u0000b",
  "%00",
  "%2e%2e%2f%2e%2e%2f",
  "$(id)",
  "`id`",
  "{{7*7}}",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal template placeholder is the attack
  "${process.env}",
  "{keywords}",
  "<script>alert(1)</script>",
  "\r\nX-Injected: 1",
  "\u202e\u0000\ufeff",
  "🙂".repeat(50),
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "US-",
  "US-ABC",
  "USER-047",
  "us-001",
  "EP-00000000000000000000000001",
  "REQ-99999999999999999999",
  "-1",
  "0",
  "9007199254740993",
  "",
  " ",
];

const LONG = "A".repeat(100_000);

export function hostileString(foreignIds: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...META_STRINGS) },
    { weight: 3, arbitrary: fc.constantFrom(...(foreignIds.length > 0 ? foreignIds : ["EP-001"])) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constant(LONG) },
    { weight: 1, arbitrary: fc.integer({ min: 1000, max: 20_000 }).map((n) => "x".repeat(n)) },
  );
}

/** Nested arrays or objects `depth` deep (as a value; serialized by JSON.stringify). */
function nested(depth: number, asObject: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
}

function wrongType(foreignIds: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true }),
    fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, -0, 0.5, -1),
    fc.boolean(),
    fc.constant(null),
    fc.array(hostileString(foreignIds), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.integer(), { maxKeys: 4 }),
    fc.integer({ min: 50, max: 3000 }).chain((d) => fc.boolean().map((o) => nested(d, o))),
  );
}

/** A value for one schema property: often well-typed (to reach handlers and SQL), often hostile. */
export function valueFor(schema: JsonSchema | undefined, foreignIds: string[]): fc.Arbitrary<unknown> {
  const s = schema ?? {};
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const typed: fc.Arbitrary<unknown>[] = [];
  if (s.enum && s.enum.length > 0) typed.push(fc.constantFrom(...s.enum));
  if (types.includes("string")) typed.push(hostileString(foreignIds));
  if (types.includes("integer")) typed.push(fc.oneof(fc.integer({ min: -5, max: 200 }), fc.integer()));
  if (types.includes("number")) typed.push(fc.double({ noNaN: true, noDefaultInfinity: true }));
  if (types.includes("boolean")) typed.push(fc.boolean());
  if (types.includes("array")) typed.push(fc.array(valueFor(s.items, foreignIds), { maxLength: 4 }));
  if (types.includes("object") && s.properties) typed.push(argumentsFor(s, foreignIds));
  for (const alt of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) typed.push(valueFor(alt, foreignIds));
  if (typed.length === 0) typed.push(hostileString(foreignIds));
  return fc.oneof(
    { weight: 4, arbitrary: fc.oneof(...typed) },
    { weight: 1, arbitrary: wrongType(foreignIds) },
  );
}

/** Sets a key as an own enumerable property, so `__proto__` survives into JSON.stringify. */
function withKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
  return target;
}

const POISON_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "isAdmin",
  "workspace_id",
  "workspaceId",
  "role",
];

/** Arguments for an object schema: properties present or not, plus unknown and prototype-polluting keys. */
export function argumentsFor(
  schema: JsonSchema,
  foreignIds: string[],
): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.entries(schema.properties ?? {});
  const fields = props.map(([name, prop]) =>
    fc.option(valueFor(prop, foreignIds), { nil: undefined, freq: 4 }).map((v) => [name, v] as const),
  );
  // Tool inputs are strict (an unknown argument is refused before the handler runs), so most bodies carry
  // none: they are the ones that reach the handlers and their SQL.
  const extras = fc.oneof(
    { weight: 4, arbitrary: fc.constant<[string, unknown][]>([]) },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...POISON_KEYS), fc.string({ maxLength: 12 })),
          fc.oneof(fc.constant({ polluted: true, workspace_id: 1, role: "admin" }), wrongType(foreignIds)),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    },
  );
  return fc.tuple(fc.tuple(...fields), extras).map(([pairs, extra]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of pairs) if (v !== undefined) withKey(out, k, v);
    for (const [k, v] of extra) withKey(out, k, v);
    return out;
  });
}

/** Fills an RFC 6570 template's `{var}`s with hostile strings. */
function uriFor(template: string, foreignIds: string[]): fc.Arbitrary<string> {
  const vars = [...template.matchAll(/\{([^}]+)\}/g)].length;
  return fc.array(hostileString(foreignIds), { minLength: vars, maxLength: vars }).map((values) => {
    let i = 0;
    return template.replace(/\{[^}]+\}/g, () => {
      const v = values[i++] ?? "";
      return i % 2 === 0 ? encodeURIComponent(v) : v;
    });
  });
}

const idArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 1_000_000 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 10 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(null, true, 1.5, -1, 2 ** 60, { a: 1 }, [1], "", "__proto__"),
  },
);

function envelope(
  method: fc.Arbitrary<string>,
  params: fc.Arbitrary<unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      id: idArb,
      method,
      params,
      jsonrpc: fc.oneof(
        { weight: 9, arbitrary: fc.constant<unknown>("2.0") },
        fc.constantFrom<unknown>("1.0", 2, null),
      ),
      extra: fc.option(fc.constantFrom("__proto__", "constructor", "result", "error", "x"), {
        nil: undefined,
      }),
    })
    .map(({ id, method: m, params: p, jsonrpc, extra }) => {
      const out: Record<string, unknown> = { jsonrpc, id, method: m };
      if (p !== undefined) out.params = p;
      if (extra !== undefined) withKey(out, extra, { polluted: true });
      return out;
    });
}

const METHODS = [
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "notifications/initialized",
  "notifications/cancelled",
  "resources/subscribe",
  "sampling/createMessage",
  "__proto__",
  "constructor",
  "tools/call/../../admin",
  "",
];

function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** Replaces the first occurrence of `marker` (ASCII) in `bytes` with invalid UTF-8 sequences. */
function injectInvalidUtf8(bytes: Uint8Array, marker: string): Uint8Array {
  const m = encoder.encode(marker);
  outer: for (let i = 0; i + m.length <= bytes.length; i++) {
    for (let j = 0; j < m.length; j++) if (bytes[i + j] !== m[j]) continue outer;
    const bad = Uint8Array.from([
      0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0xc3, 0x28, 0xf8, 0x88, 0x80, 0x80, 0x80,
    ]);
    const out = new Uint8Array(bytes.length - m.length + bad.length);
    out.set(bytes.subarray(0, i), 0);
    out.set(bad, i);
    out.set(bytes.subarray(i + m.length), i + bad.length);
    return out;
  }
  return bytes;
}

export function hostileBody(surface: Surface): fc.Arbitrary<HostileBody> {
  const ids = surface.foreignIds;
  const tools = surface.tools.length > 0 ? surface.tools : [{ name: "none", inputSchema: {} }];

  const toolCall = fc
    .constantFrom(...tools)
    .chain((tool) =>
      envelope(
        fc.constant("tools/call"),
        fc.oneof(
          {
            weight: 8,
            arbitrary: argumentsFor(tool.inputSchema, ids).map((args) => ({
              name: tool.name,
              arguments: args,
            })),
          },
          { weight: 1, arbitrary: wrongType(ids).map((args) => ({ name: tool.name, arguments: args })) },
          { weight: 1, arbitrary: hostileString(ids).map((name) => ({ name, arguments: {} })) },
        ),
      ),
    )
    .map((body) => ({
      kind: `tools/call ${String((body.params as { name?: unknown })?.name).slice(0, 40)}`,
      bytes: encode(body),
    }));

  const resourceRead = (
    surface.resourceTemplates.length > 0
      ? fc.oneof(
          fc.constantFrom(...surface.resourceTemplates).chain((t) => uriFor(t, ids)),
          hostileString(ids),
        )
      : hostileString(ids)
  ).chain((uri) =>
    envelope(fc.constant("resources/read"), fc.constant({ uri })).map((b) => ({
      kind: "resources/read",
      bytes: encode(b),
    })),
  );

  const promptGet = (
    surface.prompts.length > 0
      ? fc.constantFrom(...surface.prompts)
      : fc.constant({ name: "none", arguments: [] })
  )
    .chain((p) =>
      envelope(
        fc.constant("prompts/get"),
        fc
          .tuple(
            fc.array(fc.option(hostileString(ids), { nil: undefined }), {
              minLength: p.arguments?.length ?? 0,
              maxLength: p.arguments?.length ?? 0,
            }),
            fc.option(wrongType(ids), { nil: undefined, freq: 5 }),
          )
          .map(([values, wrong]) => {
            if (wrong !== undefined) return { name: p.name, arguments: wrong };
            const args: Record<string, unknown> = {};
            (p.arguments ?? []).forEach((a, i) => {
              if (values[i] !== undefined) args[a.name] = values[i];
            });
            return { name: p.name, arguments: args };
          }),
      ),
    )
    .map((b) => ({ kind: "prompts/get", bytes: encode(b) }));

  const anyEnvelope = envelope(
    fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 20 })),
    fc.jsonValue({ maxDepth: 3 }),
  ).map((b) => ({ kind: `envelope ${String(b.method).slice(0, 30)}`, bytes: encode(b) }));

  const notification = fc
    .constantFrom(...METHODS)
    .map((method) => ({ kind: "notification", bytes: encode({ jsonrpc: "2.0", method }) }));

  const garbage = fc.uint8Array({ maxLength: 2048 }).map((bytes) => ({ kind: "random bytes", bytes }));

  const brokenJson = fc
    .oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom(
        "",
        "{",
        "[",
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"',
        '{"jsonrpc":"2.0","id":1,"method":"tools/list"}}',
        "[]",
        "[[]]",
        "null",
        "true",
        "1e999999",
        '"string"',
        '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":NaN}',
        '{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc":"1.0"}',
      ),
    )
    .map((s) => ({ kind: "broken JSON", bytes: encoder.encode(s) }));

  const deep = fc.tuple(fc.integer({ min: 100, max: 20_000 }), fc.boolean()).map(([depth, asObject]) => {
    const open = asObject ? '{"a":'.repeat(depth) : "[".repeat(depth);
    const close = asObject ? "}".repeat(depth) : "]".repeat(depth);
    const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tools[0]?.name}","arguments":{"x":${open}1${close}}}}`;
    return { kind: `nested ${depth}`, bytes: encoder.encode(text) };
  });

  const invalidUtf8 = toolCall.map((b) => {
    // Put the bad bytes inside a string value: parsers must refuse or replace them, never crash.
    const text = new TextDecoder().decode(b.bytes);
    const marked = text.replace(/"arguments":\{/, '"arguments":{"zz":"INVALIDUTF8",');
    return {
      kind: `invalid UTF-8 in ${b.kind}`,
      bytes: injectInvalidUtf8(encoder.encode(marked), "INVALIDUTF8"),
    };
  });

  const batch = fc
    .array(fc.oneof(toolCall, resourceRead, anyEnvelope), { minLength: 1, maxLength: 4 })
    .map((items) => {
      const parts = items.map((i) => new TextDecoder().decode(i.bytes));
      return { kind: "batch", bytes: encoder.encode(`[${parts.join(",")}]`) };
    });

  const huge = fc.constant({
    kind: "body over 1 MiB",
    bytes: encoder.encode(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: tools[0]?.name, arguments: { x: "y".repeat(1_100_000) } },
      }),
    ),
  });

  return fc.oneof(
    { weight: 40, arbitrary: toolCall },
    { weight: 8, arbitrary: resourceRead },
    { weight: 8, arbitrary: promptGet },
    { weight: 8, arbitrary: anyEnvelope },
    { weight: 3, arbitrary: notification },
    { weight: 5, arbitrary: garbage },
    { weight: 6, arbitrary: brokenJson },
    { weight: 3, arbitrary: deep },
    { weight: 5, arbitrary: invalidUtf8 },
    { weight: 4, arbitrary: batch },
    { weight: 1, arbitrary: huge },
  );
}
