import pg from "pg";
/** Every storage-facing test runs once per database. */
export declare const DATABASES: readonly ["sqlite", "postgres"];
export type DatabaseKind = (typeof DATABASES)[number];
export declare const POSTGRES_URL: string;
/**
 * A `pg` pool for a test's own connections to a test database. `pool.end()` resolves before its
 * connections have finished closing, and dropping the database (`with (force)`) then ends them:
 * the pool reports that as an error of an idle connection, which without a listener is an
 * uncaught exception that fails the whole run.
 */
export declare function testPool(url: string, max: number): pg.Pool;
export interface TestDatabase {
    kind: DatabaseKind;
    url: string;
    drop(): Promise<void>;
}
/**
 * A database of its own for one test file: a fresh SQLite file, or a fresh PostgreSQL database.
 * A database rather than a schema: PostgreSQL's catalog is per database, and Kysely's migrator
 * reads the whole catalog of its database, which fails now and then while another test file drops
 * its schema at the same moment.
 */
export declare function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase>;
