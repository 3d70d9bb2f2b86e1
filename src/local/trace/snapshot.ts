/** The push body of the hosted contract (`POST /api/v1/traces`): hosted-form ids only, reqlix ids stay local. */
import type { PushBody } from "./hosted.js";
import { HOSTED_ID, type TraceIndex } from "./index-model.js";

export function snapshotBody(
  index: TraceIndex,
  meta: { repository: string; commit: string; branch: string | null },
): PushBody {
  const citations = index.citations
    .filter((c) => HOSTED_ID.test(c.id))
    .map((c) => ({
      id: c.id,
      revision: c.revision,
      file: c.file,
      line: c.line,
      column: c.column,
      kind: c.kind,
      test_name: c.test_name,
      snippet: c.snippet,
    }));
  const commits = index.scan.commits
    .map((c) => ({ sha: c.sha, ids: c.ids.filter((id) => HOSTED_ID.test(id)), subject: c.subject }))
    .filter((c) => c.ids.length > 0);
  return {
    schema: 1,
    repository: meta.repository,
    commit: meta.commit,
    branch: meta.branch,
    scanned_at: index.scan.scanned_at,
    citations,
    commits,
  };
}
