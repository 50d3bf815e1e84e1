/** Steward's version, as the OpenAPI description, `steward --version` and connectors report it. */
export const VERSION = "0.1.0";
