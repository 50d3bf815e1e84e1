import type { Config } from "../../platform/config.js";
import { errors, IdParams } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { DocumentService } from "../shared/document-service.js";
import { documentRoutes } from "../shared/document-routes.js";
import type { PolicyDryRun } from "./dry-run.js";
import { DryRunSchema, EvaluateSchema, PolicySchema, type Policy, type Rule } from "./shapes.js";

export function policyRoutes(app: App, policies: DocumentService<Policy>, dryRun: PolicyDryRun, config: Config): void {
  documentRoutes(app, { plural: "policies", noun: "policy", tag: "policies", schema: PolicySchema, service: policies, config });

  app.post(
    "/api/policies/:id/evaluate",
    {
      schema: {
        tags: ["policies"],
        summary: "Try a policy's rule",
        description:
          "Runs the policy's rule, or a draft rule sent as {rule}, over the organization's current data contracts, data products and open accesses, and lists what it would deny, warn about or hold. Changes nothing (docs/policies.md).",
        params: IdParams,
        body: EvaluateSchema,
        response: { 200: DryRunSchema, ...errors(404, 422, 429) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const draft = (request.body as { rule?: Rule } | null)?.rule;
      return dryRun.run(principalOf(request), id, draft);
    },
  );
}
