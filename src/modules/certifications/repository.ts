import { sql } from "kysely";
import type { Executor } from "../../platform/database/index.js";
import type { Certification } from "./shapes.js";

/** Most certifications an organization keeps that a decision reads. */
const MAX_CERTIFICATIONS = 1000;

export const certificationRepository = {
  /** The organization's certifications, in rank order. */
  async all(ex: Executor, organizationId: string): Promise<Certification[]> {
    const { rows } = await sql<{ doc: string }>`select "doc" from "resources"
      where "organization_id" = ${organizationId} and "kind" = 'certification' order by "row_id" limit ${MAX_CERTIFICATIONS}`.execute(ex);
    return rows.map((r) => JSON.parse(r.doc) as Certification).sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
  },
};
