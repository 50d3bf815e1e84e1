import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
/** Every storage-facing test runs once per database. */
export const DATABASES = ["sqlite", "postgres"];
export const POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/**
 * A `pg` pool for a test's own connections to a test database. `pool.end()` resolves before its
 * connections have finished closing, and dropping the database (`with (force)`) then ends them:
 * the pool reports that as an error of an idle connection, which without a listener is an
 * uncaught exception that fails the whole run.
 */
export function testPool(url, max) {
    const pool = new pg.Pool({ connectionString: url, max });
    pool.on("error", () => { });
    return pool;
}
/**
 * A database of its own for one test file: a fresh SQLite file, or a fresh PostgreSQL database.
 * A database rather than a schema: PostgreSQL's catalog is per database, and Kysely's migrator
 * reads the whole catalog of its database, which fails now and then while another test file drops
 * its schema at the same moment.
 */
export async function createTestDatabase(kind) {
    if (kind === "sqlite") {
        const dir = mkdtempSync(join(tmpdir(), "steward-test-"));
        return { kind, url: `sqlite:${join(dir, "steward.db")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    }
    const name = `t_${process.pid}_${randomBytes(4).toString("hex")}`;
    await asAdmin((admin) => admin.query(`create database ${name}`));
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    return {
        kind,
        url: url.toString(),
        // FORCE ends connections a test left open (a killed child's pool, say).
        drop: () => asAdmin((admin) => admin.query(`drop database if exists ${name} with (force)`)),
    };
}
async function asAdmin(work) {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
        await work(admin);
    }
    finally {
        await admin.end();
    }
}
//# sourceMappingURL=databases.js.map