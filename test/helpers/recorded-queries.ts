import type { Kysely, RootOperationNode } from "kysely";

/** `db` with every query sent through it recorded, unchanged, for tests that check what Steward asks the database. */
export function recordingQueries<T>(db: Kysely<T>): { db: Kysely<T>; sent: RootOperationNode[] } {
  const sent: RootOperationNode[] = [];
  return { db: db.withPlugin({ transformQuery: ({ node }) => (sent.push(node), node), transformResult: async ({ result }) => result }), sent };
}
