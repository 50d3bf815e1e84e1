import type { Config } from "../../platform/config.js";
import { errors, IdParams } from "../../platform/http/shapes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import type { PolicyDryRun } from "./dry-run.js";
import { AccessPolicyViewSchema, type AccessPolicyPreview } from "./access-preview.js";
import { DraftEvaluationRequestSchema, DraftEvaluationSchema, type DraftEvaluationRequest, DryRunSchema, EvaluateSchema, PolicySchema, type Policy, type Rule } from "./shapes.js";

export function policyRoutes(app: App, policies: DocumentService<Policy>, dryRun: PolicyDryRun, preview: AccessPolicyPreview, config: Config): void {
  documentRoutes(app, { plural: "policies", noun: "policy", tag: "policies", schema: PolicySchema, service: policies, config });

  app.post(
    "/api/policies/evaluate",
    {
      schema: {
        tags: ["policies"],
        summary: "Try the policies on a draft document",
        description:
          "What each Accepted policy with a rule at contract.publish or product.publish says about a data contract or data product before it is saved: the same input the gate gives, with the stored document of that id as `previous`. Changes nothing (docs/policies.md).",
        body: DraftEvaluationRequestSchema,
        response: { 200: DraftEvaluationSchema, ...errors(413, 422, 429) },
      },
    },
    async (request) => dryRun.draft(principalOf(request), request.body as DraftEvaluationRequest),
  );

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

  app.get(
    "/api/access/:id/policies",
    {
      schema: {
        tags: ["access"],
        summary: "What the policies say about an access",
        description: "The verdicts of the Accepted policies at the access gates now, and the approvals the access needs with how many it has. Changes nothing (docs/policies.md).",
        params: IdParams,
        response: { 200: AccessPolicyViewSchema, ...errors(404, 422, 429) },
      },
    },
    async (request) => preview.view(principalOf(request), (request.params as { id: string }).id),
  );
}
