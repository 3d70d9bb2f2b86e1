// `npm start`: runs the bundled server (dist/server/node.js), first rebuilding it, and the web app's script,
// when a source is newer than what was built (scripts/build-server.mjs, scripts/build-web.mjs). Development
// can keep tsx: `npm run start:tsx`.
import { pathToFileURL } from "node:url";
import { buildServer, SERVER_BUNDLE, staleReason } from "./build-server.mjs";
import { buildWeb, WEB_SCRIPT, webInputs } from "./build-web.mjs";

const webReason = staleReason(WEB_SCRIPT, webInputs());
if (webReason !== undefined) {
  process.stderr.write(`reqlix: building the web script (${webReason})\n`);
  await buildWeb();
}
const reason = staleReason();
if (reason !== undefined) {
  process.stderr.write(`reqlix: building the server bundle (${reason})\n`);
  await buildServer();
}
await import(pathToFileURL(SERVER_BUNDLE).href);
