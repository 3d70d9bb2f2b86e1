/**
 * Plain `fetch` against `POST /api/v1/mcp` of a running server (Node or workerd): no SDK, as a script or a
 * backend would call it. Also the seeding of a small hierarchy that the black-box suites share.
 */
let nextId = 1;

export interface RpcReply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field
  body: any;
  text: string;
}

export async function rpcHttp(
  baseUrl: string,
  token: string | undefined,
  method: string,
  params?: unknown,
): Promise<RpcReply> {
  const res = await fetch(`${baseUrl}/api/v1/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      ...(params === undefined ? {} : { params }),
    }),
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

/** Calls a tool and returns its structured result; throws with the whole reply when it did not succeed. */
export async function toolHttp(
  baseUrl: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const reply = await rpcHttp(baseUrl, token, "tools/call", { name, arguments: args });
  const result = reply.body?.result;
  if (reply.status !== 200 || !result || result.isError) {
    throw new Error(`${name}(${JSON.stringify(args)}) failed: ${reply.status} ${reply.text.slice(0, 500)}`);
  }
  return (result.structuredContent ?? JSON.parse(result.content?.[0]?.text ?? "{}")) as Record<
    string,
    unknown
  >;
}

export interface SeededHierarchy {
  epics: string[];
  stories: string[];
  requirements: string[];
  criteria: string[];
}

/**
 * `epics` epics, each with one story holding two requirements (the second depends on the first) and one
 * acceptance criterion, through the real tools.
 */
export async function seedHierarchy(
  baseUrl: string,
  token: string,
  epics: number,
  label: string,
): Promise<SeededHierarchy> {
  const out: SeededHierarchy = { epics: [], stories: [], requirements: [], criteria: [] };
  for (let i = 1; i <= epics; i++) {
    const epic = await toolHttp(baseUrl, token, "create_epic", {
      title: `${label} epic ${i}`,
      description: `${label} secret plan ${i}`,
    });
    const epicId = epic.reference_id as string;
    const story = await toolHttp(baseUrl, token, "create_user_story", {
      epic_id: epicId,
      title: `${label} story ${i}`,
    });
    const storyId = story.reference_id as string;
    const r1 = await toolHttp(baseUrl, token, "create_requirement", {
      user_story_id: storyId,
      title: `${label} requirement ${i}a`,
      description: `${label} confidential detail ${i}`,
      type: "Functional",
      priority: 2,
    });
    const r2 = await toolHttp(baseUrl, token, "create_requirement", {
      user_story_id: storyId,
      title: `${label} requirement ${i}b`,
      type: "Functional",
      priority: 1,
    });
    await toolHttp(baseUrl, token, "create_relationship", {
      source_requirement_id: r2.reference_id,
      target_requirement_id: r1.reference_id,
      relationship_type: "depends_on",
    });
    const ac = await toolHttp(baseUrl, token, "create_acceptance_criteria", {
      user_story_id: storyId,
      description: `${label} criterion ${i}`,
    });
    out.epics.push(epicId);
    out.stories.push(storyId);
    out.requirements.push(r1.reference_id as string, r2.reference_id as string);
    out.criteria.push(ac.reference_id as string);
  }
  return out;
}
