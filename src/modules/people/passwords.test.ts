import { randomBytes, scryptSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DATABASES } from "../../../test/helpers/databases.js";
import { request } from "../../../test/helpers/server.js";
import { suiteServer } from "../../../test/helpers/suite-server.js";
import { PasswordHasher } from "./passwords.js";

/** A hash as older Steward versions stored it: scrypt with N=2^14. */
function oldHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password.normalize("NFC"), salt, 32, { N: 16384, r: 8, p: 1 });
  return ["scrypt", 16384, 8, 1, salt.toString("base64url"), key.toString("base64url")].join("$");
}

describe("password hashes", () => {
  it("are made with OWASP's scrypt parameters (N=2^17, r=8, p=1) and verify", async () => {
    const hasher = new PasswordHasher();
    const hash = await hasher.hash("correct horse");
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await hasher.verify("correct horse", hash)).toBe(true);
    expect(await hasher.verify("correct horsE", hash)).toBe(false);
    expect(hasher.outdated(hash)).toBe(false);
  }, 120_000);

  it("verify hashes of older versions, and call them outdated", async () => {
    const hasher = new PasswordHasher();
    const old = oldHash("battery staple");
    expect(await hasher.verify("battery staple", old)).toBe(true);
    expect(await hasher.verify("battery stapler", old)).toBe(false);
    expect(hasher.outdated(old)).toBe(true);
  }, 120_000);

  it("refuse stored parameters that would exhaust memory, without trying them", async () => {
    const hasher = new PasswordHasher(10);
    expect(await hasher.verify("x", "scrypt$1073741824$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA")).toBe(false);
    expect(await hasher.verify("x", "scrypt$16384$64$1$AAAAAAAAAAAAAAAAAAAAAA$AAAA")).toBe(false);
  });

  it("run a bounded number of derivations at once and refuse a flood beyond the queue", async () => {
    const hasher = new PasswordHasher(10);
    const results = await Promise.allSettled(Array.from({ length: 80 }, () => hasher.verify("x", null)));
    const refused = results.filter((r) => r.status === "rejected");
    expect(refused.length).toBe(80 - 2 - 64);
    expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ status: 503 });
    // Once the flood drained, derivations run again.
    expect(await hasher.verify("x", null)).toBe(false);
  });
});

describe.each(DATABASES)("an old password hash (%s)", (kind) => {
  const t = suiteServer(kind, { overrides: { passwordLog2Cost: 15 } });

  it("still signs in, and is stored again at today's cost", async () => {
    const db = t.server.services.database.db;
    await db.transaction().execute((trx) => t.server.services.people.addMember(trx, t.organizationId, "old@example.com", "owner", "placeholder pw"));
    await db.updateTable("users").set({ password_hash: oldHash("from an old version") }).where("email", "=", "old@example.com").execute();
    const res = await request(t.url, "POST", "/auth/sign-in", { email: "old@example.com", password: "from an old version" });
    expect(res.status).toBe(200);
    const { password_hash } = await db.selectFrom("users").select("password_hash").where("email", "=", "old@example.com").executeTakeFirstOrThrow();
    expect(password_hash).toMatch(/^scrypt\$32768\$/);
    expect((await request(t.url, "POST", "/auth/sign-in", { email: "old@example.com", password: "from an old version" })).status).toBe(200);
  });
});
