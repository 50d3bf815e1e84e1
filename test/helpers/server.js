import { loadConfig } from "../../src/platform/config.js";
import { startServer } from "../../src/server.js";
import { createTestDatabase } from "./databases.js";
export async function request(baseUrl, method, path, body, options = {}) {
    const headers = { ...options.headers };
    if (options.key)
        headers["x-api-key"] = options.key;
    let payload;
    if (options.raw !== undefined)
        payload = options.raw;
    else if (body !== undefined)
        payload = JSON.stringify(body);
    if (payload !== undefined)
        headers["content-type"] = options.contentType ?? "application/json";
    const response = await fetch(baseUrl + path, { method, headers, body: payload });
    const text = await response.text();
    let parsed = text;
    if (/json/.test(response.headers.get("content-type") ?? "") && text !== "")
        parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed, text };
}
/** A real Steward on a loopback port over a fresh database, with one organization and its key. */
export async function startTestServer(kind, overrides = {}, clock) {
    const database = await createTestDatabase(kind);
    const config = loadConfig({}, 
    // scrypt at the production cost takes a second per password on a loaded machine; its own tests use it.
    { port: 0, host: "127.0.0.1", databaseUrl: database.url, bootstrap: false, logLevel: "silent", appUrl: "http://steward.test", passwordLog2Cost: 14, ...overrides });
    const server = await startServer(config, { clock, logger: false });
    const org = await server.services.organizations.create(`org-${Math.random().toString(36).slice(2)}`);
    const url = server.url;
    return {
        kind,
        url,
        database,
        server,
        organizationId: org.organizationId,
        key: org.apiKey,
        api: (method, path, body, options = {}) => request(url, method, path, body, { key: org.apiKey, ...options }),
        async createOrganization(name) {
            const created = await server.services.organizations.create(name);
            return { organizationId: created.organizationId, key: created.apiKey };
        },
        async close() {
            await server.close();
            await database.drop();
        },
    };
}
//# sourceMappingURL=server.js.map