// `npm start`: runs the bundled server (dist/server/node.js), first rebuilding it, and the web app's script,
// when a source is newer than what was built (scripts/build-server.mjs, scripts/build-web.mjs). Development
// can keep tsx: `npm run start:tsx`.
import module from "node:module";
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
// Node's compile cache (Node >= 22.1; NODE_COMPILE_CACHE names its folder, default in the temp folder,
// NODE_DISABLE_COMPILE_CACHE=1 turns it off) keeps the bundle's compiled code between starts: ~30 ms of
// the ~330 ms of CPU a start takes to healthy (bench/startup.ts). Node 20 has none and compiles as before.
module.enableCompileCache?.();
await import(pathToFileURL(SERVER_BUNDLE).href);
