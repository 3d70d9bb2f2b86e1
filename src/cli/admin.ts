/** `npm run admin -- <command>`: see admin-commands.ts for the commands. */
import { runAdmin } from "./admin-commands.js";

const code = await runAdmin(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
process.exitCode = code;
