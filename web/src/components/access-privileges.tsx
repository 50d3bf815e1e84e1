/** The access's privileges plan: what it allows, column by column, and why (docs/consumers.md). */
import type { PrivilegesPlanDocument } from "../../../src/modules/access/privileges.js";
import { enc, get } from "../api.js";
import { Badge, ErrorBox, Loading, useLoad } from "../ui.js";
import { Fact } from "./facts.js";

const TONE: Record<string, string> = { granted: "ok", masked: "warn", withheld: "bad" };
const SCOPE: Record<string, string> = {
  schema: "every table of the schema",
  table: "the whole table",
  columns: "some columns",
  none: "nothing",
};

const objectName = (o: PrivilegesPlanDocument["objects"][number]) => `${o.server} · ${o.schema}${o.table === null ? "" : `.${o.table}`}`;

/** `version` reloads the plan when the access changes. */
export function AccessPrivileges({ id, version }: { id: string; version?: unknown }) {
  const plan = useLoad(() => get<PrivilegesPlanDocument>(`/api/access/${enc(id)}/privileges`), [id, version]);
  return (
    <section aria-labelledby="privileges">
      <h2 id="privileges">Privileges</h2>
      <ErrorBox error={plan.error} title="The privileges plan could not be made" />
      {plan.loading && !plan.data && <Loading what="Planning" />}
      {plan.data && (
        <>
          <p class="muted">
            Read in clear up to <strong>{plan.data.ceiling.clear}</strong>, masked up to <strong>{plan.data.ceiling.masked}</strong> ({plan.data.scheme.levels.join(" < ")}).
          </p>
          {plan.data.ceiling.reasons.length + plan.data.notes.length > 0 && (
            <ul class="muted">
              {[...plan.data.ceiling.reasons, ...plan.data.notes].map((line, i) => (
                <li key={i}>{line}</li>
              ))}
            </ul>
          )}
          {plan.data.objects.map((o) => (
            <div key={objectName(o)}>
              <h3>
                <code>{objectName(o)}</code> — {SCOPE[o.scope]}
              </h3>
              {o.columns.length > 0 && (
                <table aria-label={`Columns of ${objectName(o)}`}>
                  <thead>
                    <tr>
                      <th scope="col">Column</th>
                      <th scope="col">Classification</th>
                      <th scope="col">Decision</th>
                      <th scope="col">Why</th>
                    </tr>
                  </thead>
                  <tbody>
                    {o.columns.map((c) => (
                      <tr key={c.name}>
                        <td>
                          <code>{c.name}</code>
                        </td>
                        <td>{c.classification ?? "—"}</td>
                        <td>
                          <Badge tone={TONE[c.decision]}>{c.decision}</Badge>
                        </td>
                        <td>{c.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          ))}
        </>
      )}
    </section>
  );
}

/** A connector's `diagnostics`, as a row of the provisioning facts (`Facts`): its message, and the drift reconciliation found. */
export function ProvisioningDiagnostics({ diagnostics }: { diagnostics: unknown }) {
  if (!diagnostics || typeof diagnostics !== "object" || Array.isArray(diagnostics)) return null;
  const d = diagnostics as { message?: unknown; drift?: unknown };
  const drift = Array.isArray(d.drift) ? d.drift.filter((x): x is { kind: string; what: string } => !!x && typeof x.kind === "string" && typeof x.what === "string") : [];
  return (
    <Fact label="Diagnostics">
      {typeof d.message === "string" && <p>{d.message}</p>}
      {drift.length > 0 && (
        <ul aria-label="Drift found by reconciliation">
          {drift.map((x, i) => (
            <li key={i}>
              <Badge tone="warn">{x.kind}</Badge> {x.what}
            </li>
          ))}
        </ul>
      )}
    </Fact>
  );
}
