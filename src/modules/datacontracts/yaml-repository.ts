import type { Executor } from "../../platform/database/index.js";

/**
 * The only SQL over a data contract's YAML text as written (`resources.yaml_text`, migration
 * 0150): kept beside the parsed document, null when the contract was last written as JSON.
 */
export const contractYamlRepository = {
  async set(ex: Executor, organizationId: string, id: string, text: string | null): Promise<void> {
    await ex.updateTable("resources").set({ yaml_text: text }).where("organization_id", "=", organizationId).where("kind", "=", "datacontract").where("id", "=", id).execute();
  },

  async get(ex: Executor, organizationId: string, id: string): Promise<string | null> {
    const row = await ex.selectFrom("resources").select("yaml_text").where("organization_id", "=", organizationId).where("kind", "=", "datacontract").where("id", "=", id).executeTakeFirst();
    return row?.yaml_text ?? null;
  },
};
