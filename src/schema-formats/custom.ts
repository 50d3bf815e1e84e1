/** `custom` specifications are stored as sent: never parsed, no models, no automation. */
import type { SchemaParser } from "./types.js";

export const customParser: SchemaParser = {
  type: "custom",
  parse() {
    return { ok: true, detectedType: "custom", models: [] };
  },
};
