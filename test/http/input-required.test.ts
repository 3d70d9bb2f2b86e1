/**
 * Multi-round-trip requests (MCP 2026-07-28 `input_required`) and header-mirrored arguments on `/mcp`, over
 * real HTTP with the real auth, through the SDK v2 client: a handler's `ctx.input` round-trips through the
 * client (auto-fulfilled by its handlers, and by hand), and the `requestState` the client carries cannot be
 * altered, replayed by another token or workspace, moved to other arguments or another tool, or used after
 * it expired. A `Mcp-Param-*` header that disagrees with the body is refused (HTTP 400, -32020). The older
 * faces refuse a call that asks, saying why.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedContext } from "../../src/hosted/context.js";
import { conformanceRegistry } from "../fixtures/conformance-registry.js";
import { type HostedServer, MCP_ACCEPT, parseMcpBody, startHosted } from "../helpers/hosted.js";

const MODERN = "2026-07-28";
let hosted: HostedServer;
let token: string;
let sameUserOtherToken: string;
let otherWorkspaceToken: string;
/** The server's clock: moved forward to expire a state. */
let now = Date.parse("2026-11-25T12:00:00Z");

beforeAll(async () => {
  hosted = await startHosted({
    extraRegistries: [conformanceRegistry<HostedContext>()],
    deps: { clock: () => new Date(now) },
  });
  token = await hosted.createToken("asker", "editor");
  sameUserOtherToken = await hosted.createToken("asker", "editor");
  otherWorkspaceToken = await hosted.createToken("stranger", "editor", "elsewhere");
});

afterAll(async () => {
  await hosted?.close();
});

interface Answer {
  resultType?: string;
  inputRequests?: Record<string, { method: string }>;
  requestState?: string;
  content?: Array<{ type: string; text?: string }>;
  isError?: boolean;
}

type Failure = { code?: number; message: string; data?: Record<string, unknown> };

async function connect(
  bearer: string,
  capabilities: Record<string, unknown> = { elicitation: {}, sampling: {}, roots: {} },
  autoFulfill = false,
): Promise<ClientV2> {
  const client = new ClientV2(
    { name: "input-required-test", version: "1.0.0" },
    {
      capabilities,
      versionNegotiation: { mode: { pin: MODERN } },
      inputRequired: { autoFulfill },
    },
  );
  await client.connect(
    new TransportV2(new URL(`${hosted.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${bearer}` } },
    }),
  );
  return client;
}

/** One call handed back as it is (`input_required` included), or the JSON-RPC error it met. */
async function call(client: ClientV2, params: Record<string, unknown>): Promise<Answer | Failure> {
  return (client.callTool(params as never, { allowInputRequired: true }) as Promise<Answer>).catch(
    (e: unknown) => e as Failure,
  );
}

function accept(content: Record<string, string | number | boolean>) {
  return { action: "accept" as const, content };
}

describe("a tool asking the client through the SDK v2 client", () => {
  it("auto-fulfils two rounds through the client's own elicitation handler", async () => {
    const client = await connect(token, { elicitation: {} }, true);
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params.message);
      return request.params.message.startsWith("Step 1")
        ? accept({ name: "Ada" })
        : accept({ color: "green" });
    });
    try {
      const result = (await client.callTool({
        name: "test_input_required_result_multi_round",
        arguments: {},
      })) as Answer;
      expect(result.content?.[0]?.text).toBe("Ada likes green");
      expect(asked).toEqual(["Step 1: What is your name?", "Step 2: What is your favorite color?"]);
    } finally {
      await client.close();
    }
  });

  it("answers input_required with a signed state, then completes with the answer and that state", async () => {
    const client = await connect(token);
    try {
      const first = (await call(client, {
        name: "test_input_required_result_request_state",
        arguments: {},
      })) as Answer;
      expect(first.resultType).toBe("input_required");
      expect(first.inputRequests?.confirm?.method).toBe("elicitation/create");
      expect(first.requestState).toMatch(/^rs1\./);
      const done = (await call(client, {
        name: "test_input_required_result_request_state",
        arguments: {},
        inputResponses: { confirm: accept({ ok: true }) },
        requestState: first.requestState,
      })) as Answer;
      expect(done.content?.[0]?.text).toBe("state-ok: confirmed true");
    } finally {
      await client.close();
    }
  });

  it("refuses an answer that does not fit the question, naming the field", async () => {
    const client = await connect(token);
    try {
      const answer = (await call(client, {
        name: "test_input_required_result_elicitation",
        arguments: {},
        inputResponses: { user_name: accept({ name: 42 }) },
      })) as Answer;
      expect(answer.isError).toBe(true);
      expect(answer.content?.[0]?.text).toContain("inputResponses.user_name.content.name: expected a string");
    } finally {
      await client.close();
    }
  });

  it("asks nothing a client did not declare: -32021 naming the capability", async () => {
    const client = await connect(token, { elicitation: {} });
    try {
      const error = (await call(client, { name: "test_missing_capability", arguments: {} })) as Failure;
      expect(error.code).toBe(-32021);
      expect(error.data?.requiredCapabilities).toEqual({ sampling: {} });
    } finally {
      await client.close();
    }
  });
});

describe("the requestState a client carries", () => {
  /** A fresh first round of the two-step tool, answered: the state of round 2 and the answer that goes with it. */
  async function secondRound(client: ClientV2): Promise<string> {
    const first = (await call(client, {
      name: "test_input_required_result_multi_round",
      arguments: {},
    })) as Answer;
    const second = (await call(client, {
      name: "test_input_required_result_multi_round",
      arguments: {},
      inputResponses: { step1: accept({ name: "Ada" }) },
      requestState: first.requestState,
    })) as Answer;
    expect(second.inputRequests?.step2?.method).toBe("elicitation/create");
    expect(second.requestState).not.toBe(first.requestState);
    return second.requestState as string;
  }

  const finish = (
    client: ClientV2,
    state: string,
    name = "test_input_required_result_multi_round",
    args = {},
  ) =>
    call(client, {
      name,
      arguments: args,
      inputResponses: { step2: accept({ color: "blue" }) },
      requestState: state,
    });

  it("completes for its own caller and request (the control case)", async () => {
    const client = await connect(token);
    try {
      const done = (await finish(client, await secondRound(client))) as Answer;
      expect(done.content?.[0]?.text).toBe("Ada likes blue");
    } finally {
      await client.close();
    }
  });

  it("is refused when altered: one answer changed in its readable body", async () => {
    const client = await connect(token);
    try {
      const state = await secondRound(client);
      const [, body, mac] = state.split(".") as [string, string, string];
      const decoded = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
      decoded.a.step1.content.name = "Mallory";
      const forged = `rs1.${Buffer.from(JSON.stringify(decoded)).toString("base64url")}.${mac}`;
      const error = (await finish(client, forged)) as Failure;
      expect(error.code).toBe(-32602);
      expect(error.message).toContain("requestState failed its integrity check");
      const garbage = (await finish(client, `${state}-TAMPERED`)) as Failure;
      expect(garbage.code).toBe(-32602);
    } finally {
      await client.close();
    }
  });

  it("is refused when replayed by another token of the same user, or by another workspace", async () => {
    const owner = await connect(token);
    const sibling = await connect(sameUserOtherToken);
    const stranger = await connect(otherWorkspaceToken);
    try {
      const state = await secondRound(owner);
      for (const other of [sibling, stranger]) {
        const error = (await finish(other, state)) as Failure;
        expect(error.code).toBe(-32602);
        expect(error.message).toContain("another credential");
      }
      // Still good for its owner: a refused replay consumes nothing.
      expect(((await finish(owner, state)) as Answer).content?.[0]?.text).toBe("Ada likes blue");
    } finally {
      await Promise.all([owner.close(), sibling.close(), stranger.close()]);
    }
  });

  it("is refused for another tool or other arguments", async () => {
    const client = await connect(token);
    try {
      const state = await secondRound(client);
      const otherTool = (await finish(client, state, "test_input_required_result_elicitation")) as Failure;
      expect(otherTool.code).toBe(-32602);
      const otherArgs = (await finish(client, state, "test_input_required_result_multi_round", {
        extra: 1,
      })) as Failure;
      expect(otherArgs.code).toBe(-32602);
    } finally {
      await client.close();
    }
  });

  it("is refused once expired (10 minutes), saying when", async () => {
    const client = await connect(token);
    try {
      const state = await secondRound(client);
      now += 10 * 60_000 + 1_000;
      const error = (await finish(client, state)) as Failure;
      expect(error.code).toBe(-32602);
      expect(error.message).toMatch(/requestState expired at 2026-11-25T12:10:00/);
    } finally {
      await client.close();
    }
  });
});

describe("a header-mirrored argument (x-mcp-header)", () => {
  it("is listed as x-mcp-header and sent by the SDK v2 client, which the server accepts", async () => {
    const client = await connect(token);
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === "test_header_mirrored_argument");
      expect(
        (tool?.inputSchema.properties as Record<string, Record<string, unknown>> | undefined)?.region?.[
          "x-mcp-header"
        ],
      ).toBe("Region");
      const result = (await client.callTool({
        name: "test_header_mirrored_argument",
        arguments: { region: "eu-west" },
      })) as Answer;
      expect(result.content?.[0]?.text).toBe("region eu-west");
    } finally {
      await client.close();
    }
  });

  async function post(region: string, header: string | undefined) {
    const response = await fetch(`${hosted.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: MCP_ACCEPT,
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "test_header_mirrored_argument",
        ...(header === undefined ? {} : { "mcp-param-region": header }),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "test_header_mirrored_argument",
          arguments: { region },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const [message] = parseMcpBody(response.headers.get("content-type"), await response.text()) as Array<{
      id: number;
      error?: Failure;
      result?: Answer;
    }>;
    return { status: response.status, message };
  }

  it("refuses a header that disagrees with the body, is missing, or is bad Base64: HTTP 400, -32020", async () => {
    for (const [header, why] of [
      ["us-east", 'says "us-east", the body "eu-west"'],
      [undefined, "is missing"],
      ["=?base64?ZXUtd2VzdA?=", "not canonical Base64"],
    ] as const) {
      const { status, message } = await post("eu-west", header);
      expect(status).toBe(400);
      expect(message?.id).toBe(7);
      expect(message?.error?.code).toBe(-32020);
      expect(message?.error?.message).toContain(why);
    }
  });

  it("accepts the value literally or as =?base64?…?= of its UTF-8", async () => {
    expect((await post("eu-west", "eu-west")).message?.result?.content?.[0]?.text).toBe("region eu-west");
    const utf8 = Buffer.from("zürich").toString("base64");
    expect((await post("zürich", `=?base64?${utf8}?=`)).message?.result?.content?.[0]?.text).toBe(
      "region zürich",
    );
  });
});

describe("faces that cannot carry the question", () => {
  it("MCP 2025-11-25 on /mcp: a tool result with isError naming the revision to use", async () => {
    const client = new Client({ name: "old", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${hosted.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain("only MCP 2026-07-28 on /mcp can carry");
    } finally {
      await client.close();
    }
  });

  it("/api/v1/mcp: -32602 saying the same", async () => {
    const response = await fetch(`${hosted.url}/api/v1/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "test_input_required_result_elicitation", arguments: {} },
      }),
    });
    const body = (await response.json()) as { error?: Failure };
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.message).toContain("only MCP 2026-07-28 on /mcp can carry");
  });
});
