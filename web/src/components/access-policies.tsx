import { enc, get, pagePath, type AccessPolicyView } from "../api.js";
import { Badge, ErrorBox, useLoad } from "../ui.js";
import { PolicyRead } from "./policy-check.js";

/**
 * What the policies say about an access now (GET /api/access/{id}/policies): shown on the
 * access's page, so the person about to approve sees each policy's verdict, the values it read,
 * and how many approvals the access has and needs.
 */
export function AccessPolicies({ id, version }: { id: string; version?: unknown }) {
  const view = useLoad(() => get<AccessPolicyView>(`/api/access/${enc(id)}/policies`), [id, version]);
  if (view.error) return <ErrorBox error={view.error} title="What the policies say could not be read" />;
  const v = view.data;
  if (!v || (v.verdicts.length === 0 && v.requirements.length === 0)) return null;
  return (
    <section aria-labelledby="policy-verdicts">
      <h2 id="policy-verdicts">What the policies say</h2>
      {v.requirements.length > 0 && (
        <ul class="plain-list" aria-label="Approvals needed">
          {v.requirements.map((r) => (
            <li key={r.source}>
              {r.given} of {r.count} approvals: {r.name}
              {r.eligibleNow ? " (you may give one)" : ""}
            </li>
          ))}
        </ul>
      )}
      <ul class="plain-list" aria-label="Verdicts">
        {v.verdicts.map((p) => (
          <li key={`${p.policyId}:${p.gate}`}>
            <a href={pagePath("policies", p.policyId)}>{p.name}</a>{" "}
            <Badge tone={p.effect === "deny" || p.effect === "warn" ? "warn" : undefined}>{p.effect === "require-approvals" ? `needs ${p.count ?? 1} approvals` : p.effect}</Badge> at {p.gate}
            {p.message && <>: {p.message}</>}
            <PolicyRead read={p.read} error={p.error} />
          </li>
        ))}
      </ul>
    </section>
  );
}
