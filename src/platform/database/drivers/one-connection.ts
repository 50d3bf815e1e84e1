import { Kysely, SingleConnectionProvider, type DatabaseConnection, type Dialect, type Driver } from "kysely";
import type { Database } from "../index.js";
import { perConnection } from "./per-connection.js";
import type { DB } from "../tables.js";

/** Runs `work` on one connection, held for the whole of it. */
export type OnOneConnection = <T>(work: (conn: Kysely<DB>) => Promise<T>) => Promise<T>;

/**
 * What `db.connection().execute(work)` does — take one connection from the pool (on SQLite, the
 * one connection, behind its lock), hand `work` a Kysely instance bound to it, give the connection
 * back when `work` settles — except that the bound instance is made once per connection and kept.
 * Kysely makes a new one on every call, copying its options by a spread and adding the executor,
 * which V8 (Node 20) keeps through the scavenges into the old generation as garbage
 * (`src/platform/objects.ts`). Group commit takes a connection for every group of changes; that was
 * about 40 bytes of old generation per change (bench/HISTORY.md, "Garbage promoted by three
 * patterns").
 *
 * Kept per connection object, which the driver hands out again for the same connection: SQLite's
 * one connection, and on PostgreSQL each of the pool's (whose wrappers are made once per connection,
 * pg-statements.ts and pg-write-behind.ts).
 *
 * The bound instance runs queries and raw statements on its connection, which is all group commit
 * asks of it. Its transaction builder, `connection()` and introspection would need the pool's
 * driver and dialect, which it has not: they fail at once, rather than open a second transaction
 * beside the one on the connection.
 */
export function onOneConnection({ db }: Pick<Database, "db">): OnOneConnection {
  const executor = db.getExecutor();
  const boundTo = perConnection(
    (connection: DatabaseConnection) =>
      new Kysely<DB>({
        config: { dialect: withoutDialect },
        dialect: withoutDialect,
        driver: withoutPool,
        executor: executor.withConnectionProvider(new SingleConnectionProvider(connection)),
      }),
  );
  return (work) => executor.provideConnection(async (connection) => work(await boundTo(connection)));
}

function refuse(): never {
  throw new Error("A connection-bound instance cannot open transactions, take other connections or introspect.");
}

const withoutDialect: Dialect = {
  createDriver: () => withoutPool,
  createQueryCompiler: () => refuse(),
  createAdapter: () => refuse(),
  createIntrospector: () => refuse(),
};

const withoutPool: Driver = {
  init: async () => {},
  acquireConnection: async () => refuse(),
  beginTransaction: async () => refuse(),
  commitTransaction: async () => refuse(),
  rollbackTransaction: async () => refuse(),
  releaseConnection: async () => refuse(),
  destroy: async () => {},
};
