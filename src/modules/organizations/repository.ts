import type { Executor } from "../../platform/database/index.js";

export const organizationRepository = {
  /** Inserts unless the name is taken; answers whether it inserted. */
  async insertIfAbsent(ex: Executor, row: { id: string; name: string; created_at: string }): Promise<boolean> {
    const inserted = await ex
      .insertInto("organizations")
      .values(row)
      .onConflict((oc) => oc.column("name").doNothing())
      .returning("id")
      .executeTakeFirst();
    return inserted !== undefined;
  },

  async findById(ex: Executor, id: string) {
    return ex.selectFrom("organizations").selectAll().where("id", "=", id).executeTakeFirst();
  },

  async any(ex: Executor): Promise<boolean> {
    const row = await ex.selectFrom("organizations").select("id").limit(1).executeTakeFirst();
    return row !== undefined;
  },
};
