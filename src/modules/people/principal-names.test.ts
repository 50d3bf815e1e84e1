import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { peopleRepository } from "./repository.js";
import { principalNames } from "./principal-names.js";

describe.each(DATABASES)("principal names (%s)", (kind) => {
  const t = suiteServer(kind);

  it("names keys of the organization, people by address and the system; leaves the rest as they are", async () => {
    const db = t.server.services.database.db;
    const own = (await t.api("POST", "/api/api-keys", { displayName: "Deploy bot", scope: "organization" })).body.id;
    const other = await t.createOrganization("elsewhere");
    const foreign = (await t.api("POST", "/api/api-keys", { displayName: "Not yours", scope: "organization" }, { key: other.key })).body.id;
    await peopleRepository.insertUserIfAbsent(db, { id: "u-1", email: "ada@example.com", password_hash: "scrypt$unused", created_at: "2026-01-01T00:00:00.000Z" });
    const names = await principalNames(db, t.organizationId, [`api-key:${own}`, `api-key:${foreign}`, "user:u-1", "user:gone", "system", "api-key:"]);
    expect(Object.fromEntries(names)).toEqual({ [`api-key:${own}`]: "Deploy bot", "user:u-1": "ada@example.com", system: "Steward" });
  });
});
