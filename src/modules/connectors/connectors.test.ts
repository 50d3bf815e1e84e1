import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";

describe.each(DATABASES)("connectors (%s)", (kind) => {
  const t = suiteServer(kind, { teams: { ops: "Ops" } });

  it("keeps a connector's feed position: PUT replaces, GET reads, and no event is emitted", async () => {
    const connector = { info: { type: "postgres-access", connectorVersion: "1.2.0" }, state: { lastEventId: null, cursor: { any: "thing" } } };
    expect((await t.api("PUT", "/api/connectors/pg", connector)).status).toBe(200);
    const replaced = { info: { type: "postgres-access" }, state: { lastEventId: "01a20096-66a7-776b-b4f0-15af388badf4" } };
    expect((await t.api("PUT", "/api/connectors/pg", replaced)).body).toEqual({ id: "pg", ...replaced });
    expect((await t.api("GET", "/api/connectors/pg")).body).toEqual({ id: "pg", ...replaced });
    expect((await t.api("GET", "/api/connectors")).body).toHaveLength(1);
    const subjects = (await t.api("GET", "/api/events")).body.map((e: any) => e.subject);
    expect(subjects).toEqual(["ops"]);
  });

  it("requires info.type", async () => {
    const res = await t.api("PUT", "/api/connectors/bad", { state: {} });
    expect(res.status).toBe(422);
    expect(res.body.violations.map((v: any) => v.field)).toEqual(["info"]);
  });

  it("is for organization keys only", async () => {
    const teamKey = (await t.api("POST", "/api/api-keys", { displayName: "t", scope: "team", teamId: "ops" })).body.key;
    for (const [method, path, body] of [
      ["GET", "/api/connectors", undefined],
      ["GET", "/api/connectors/pg", undefined],
      ["PUT", "/api/connectors/pg", { info: { type: "x" } }],
      ["DELETE", "/api/connectors/pg", undefined],
    ] as const) {
      expect((await t.api(method, path, body, { key: teamKey })).status, `${method} ${path}`).toBe(403);
    }
    expect((await t.api("DELETE", "/api/connectors/pg")).status).toBe(204);
  });
});
