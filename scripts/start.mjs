// `npm start`: runs the bundled server (dist/server/node.js), first rebuilding it when a source is newer
// than the bundle (scripts/build-server.mjs). Development can keep tsx: `npm run start:tsx`.
import { pathToFileURL } from "node:url";
import { buildServer, SERVER_BUNDLE, staleReason } from "./build-server.mjs";

const reason = staleReason();
if (reason !== undefined) {
  process.stderr.write(`reqlix: building the server bundle (${reason})\n`);
  await buildServer();
}
await import(pathToFileURL(SERVER_BUNDLE).href);
