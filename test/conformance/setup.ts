import { standardsDir } from "./standards-dir.js";

/** Stops the conformance run before any test when the standards folder is missing. */
export default function setup(): void {
  standardsDir();
}
