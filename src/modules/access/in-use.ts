import type { Clock } from "../../platform/clock.js";
import type { Executor } from "../../platform/database/index.js";
import { conflict } from "../../platform/errors.js";
import { accessRepository } from "./repository.js";

/**
 * What the catalog asks before a team, data product or data contract is deleted or loses ports:
 * whether requested, approved or active accesses still use it (docs/product.md §4, §5). Given to
 * their definitions in `src/services.ts`.
 */
export function accessesInUse(clock: Clock) {
  const now = () => clock.now().toISOString();
  return {
    /** Open accesses the team consumes or provides. */
    countForTeam: (ex: Executor, organizationId: string, teamId: string) => accessRepository.countOpenForTeam(ex, organizationId, teamId, now()),

    /** Open accesses granted under the contract. */
    countForContract: (ex: Executor, organizationId: string, contractId: string) => accessRepository.countOpenForContract(ex, organizationId, contractId, now()),

    /**
     * Refuses (409) to delete a data product, or the ports `portIds` of it, while open accesses use
     * them; and a whole product while it consumes data through open accesses, which would leave
     * them without the team that may withdraw or cancel them.
     */
    async checkProductNotInUse(ex: Executor, organizationId: string, productId: string, portIds?: string[]): Promise<void> {
      const open = await accessRepository.openForProduct(ex, organizationId, productId, now(), portIds);
      if (open.count > 0) {
        // The ports in use, and at most ten of them: a product may drop thousands at once.
        const named = open.portIds.slice(0, 10).map((id) => `'${id}'`).join(", ");
        const more = open.portIds.length > 10 ? ` and ${open.portIds.length - 10} more` : "";
        const what = portIds ? `output port(s) ${named}${more} of data product '${productId}'` : `data product '${productId}'`;
        throw conflict(`${open.count} access request(s) still use ${what}. Cancel or delete them first.`);
      }
      const consumed = portIds === undefined ? await accessRepository.countOpenConsumedBy(ex, organizationId, productId, now()) : 0;
      if (consumed > 0) throw conflict(`Data product '${productId}' consumes data through ${consumed} open access request(s). Cancel or delete them first.`);
    },
  };
}
