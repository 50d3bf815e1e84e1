import type { Kysely, Selectable } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import type { DB } from "../../platform/database/tables.js";

/** The tables whose rows a token sent back finds (a session cookie, an invitation link): only the token's hash is stored. */
type TokenTable = "invitations" | "sessions";

/** The insert of a row and its lookup by the hash of its token, in a table found that way. */
export function tokenRows<T extends TokenTable>(table: T) {
  const rows = (ex: Executor) => ex as unknown as Kysely<Record<TokenTable, { token_hash: string }>>;
  return {
    async insert(ex: Executor, row: Selectable<DB[T]>): Promise<void> {
      await rows(ex).insertInto(table as TokenTable).values(row as unknown as { token_hash: string }).execute();
    },

    async find(ex: Executor, tokenHash: string): Promise<Selectable<DB[T]> | undefined> {
      return (await rows(ex).selectFrom(table as TokenTable).selectAll().where("token_hash", "=", tokenHash).executeTakeFirst()) as Selectable<DB[T]> | undefined;
    },
  };
}
