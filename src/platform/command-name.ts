import { realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * How the person reading a message should run the CLI from where they are: `steward` when this
 * package is installed globally (its bin is on the PATH), `npx steward` otherwise — in a clone, or
 * installed into a project's node_modules, where npx finds the package's own bin.
 */
export function cliCommand(): string {
  const here = realpathSync(fileURLToPath(import.meta.url));
  // <prefix>/bin/node → <prefix>/lib/node_modules holds global packages on Linux and macOS.
  const globalRoot = join(dirname(dirname(process.execPath)), "lib", "node_modules") + sep;
  return here.startsWith(globalRoot) ? "steward" : "npx steward";
}
