import { useState } from "preact/hooks";
import { call, enc, get, pagePath, type DryRun, type Policy } from "../api.js";
import { Badge, ErrorBox, Loading, PageHeader, Table, useLoad } from "../ui.js";
import { Facts, Fact, IdFact } from "../components/facts.js";
import { GovernanceNav } from "../components/section-nav.js";
import { ListTable } from "../components/list-parts.js";
import { NameCell } from "../components/catalog-parts.js";

/** Policies with their rules, classification schemes and certifications (docs/policies.md). */

const STATUS_TONE: Record<string, string> = { Accepted: "ok", Draft: "muted", Rejected: "warn", Deprecated: "muted" };
const EFFECT_WORDS: Record<string, string> = { deny: "refuses", warn: "warns", "require-approvals": "requires approvals" };

export function PolicyList() {
  const policies = useLoad(() => get<Policy[]>("/api/policies"), []);
  return (
    <>
      <GovernanceNav current="policies" />
      <PageHeader title="Policies">
        <p class="lead">The organization's rules of play. Accepted policies with a rule decide at their gates.</p>
      </PageHeader>
      <ListTable
        list={policies}
        empty="No policies yet."
        columns={["Policy", "Status", "Rule"]}
        caption="Policies"
        row={(p) => (
          <tr key={p.id}>
            <NameCell kind="policies" id={p.id} name={p.name} />
            <td data-label="Status">
              <Badge tone={STATUS_TONE[p.status ?? "Draft"]}>{p.status ?? "Draft"}</Badge>
            </td>
            <td data-label="Rule">{p.rule ? `${EFFECT_WORDS[p.rule.effect]} at ${p.rule.gates.join(", ")}` : <span class="muted">prose only</span>}</td>
          </tr>
        )}
      />
    </>
  );
}

export function PolicyPage({ id }: { id: string }) {
  const policy = useLoad(() => get<Policy>(`/api/policies/${enc(id)}`), [id]);
  if (policy.error) return <ErrorBox error={policy.error} />;
  if (!policy.data) return <Loading />;
  const p = policy.data;
  return (
    <>
      <GovernanceNav current="policies" />
      <PageHeader title={p.name} kicker={<a href="/policies">Policies</a>}>
        <p>
          <Badge tone={STATUS_TONE[p.status ?? "Draft"]}>{p.status ?? "Draft"}</Badge>{" "}
          {p.status === "Accepted" ? "Enforced at its gates." : "Not enforced: only Accepted policies decide."}
        </p>
      </PageHeader>
      <Facts>
        <IdFact id={p.id} />
        <Fact label="Status">{p.status ?? "Draft"}</Fact>
      </Facts>
      {p.content && (
        <section aria-labelledby="content">
          <h2 id="content">What it says</h2>
          <p class="prose">{p.content}</p>
        </section>
      )}
      {p.rule ? (
        <section aria-labelledby="rule">
          <h2 id="rule">Rule</h2>
          <Facts>
            <Fact label="Effect">
              {p.rule.effect}
              {p.rule.approvals ? ` (${p.rule.approvals.count} distinct approvers)` : ""}
            </Fact>
            <Fact label="Gates">{p.rule.gates.join(", ")}</Fact>
            <Fact label="Message">{p.rule.message}</Fact>
          </Facts>
          <pre class="code">
            <code>{p.rule.condition}</code>
          </pre>
        </section>
      ) : (
        <p class="muted">This policy has no executable rule.</p>
      )}
      <TryIt policy={p} />
    </>
  );
}

/** "Try it": a dry run of the rule, or of an edited draft, over the organization's current data. Changes nothing. */
function TryIt({ policy }: { policy: Policy }) {
  const [condition, setCondition] = useState(policy.rule?.condition ?? "");
  const [result, setResult] = useState<DryRun | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const rule = policy.rule ?? { condition: "", effect: "warn" as const, gates: ["contract.publish" as const] };
  const run = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const draft = condition === policy.rule?.condition ? undefined : { rule: { ...rule, condition } };
      setResult(await call<DryRun>("POST", `/api/policies/${enc(policy.id)}/evaluate`, draft ?? null));
    } catch (e) {
      setError(e);
      setResult(undefined);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="try-it">
      <h2 id="try-it">Try it</h2>
      <p class="muted">Runs the rule over the current data contracts, data products and open accesses. Nothing is changed.</p>
      <form onSubmit={run}>
        <label for="try-condition">Condition (CEL)</label>
        <textarea id="try-condition" rows={4} value={condition} onInput={(e) => setCondition((e.target as HTMLTextAreaElement).value)} />
        <p>
          <button type="submit" disabled={busy || condition.trim() === ""}>
            {busy ? "Trying…" : "Try it"}
          </button>
        </p>
      </form>
      <ErrorBox error={error} title="The rule cannot be tried" />
      {result && (
        <div aria-live="polite">
          <p>
            Evaluated {result.evaluated.datacontracts} contracts, {result.evaluated.dataproducts} products and {result.evaluated.accesses} open accesses: it would deny{" "}
            {result.counts.deny}, warn about {result.counts.warn} and hold {result.counts.hold}.{result.truncated ? " (Not everything was read.)" : ""}
          </p>
          {result.findings.length > 0 && (
            <Table columns={["Resource", "Gate", "Outcome", "Values read"]} caption="What the rule would decide">
              {result.findings.map((f) => (
                <tr key={`${f.gate}:${f.kind}:${f.id}`}>
                  <td>
                    <a href={pagePath(f.kind === "access" ? "access" : f.kind === "datacontract" ? "datacontracts" : "dataproducts", f.id)}>{f.id}</a>
                  </td>
                  <td data-label="Gate">{f.gate}</td>
                  <td data-label="Outcome">
                    <Badge tone={f.outcome === "deny" ? "warn" : undefined}>{f.outcome}</Badge>
                  </td>
                  <td data-label="Values read">
                    <code>{JSON.stringify(f.read)}</code>
                    {f.error && <div class="sub">{f.error}</div>}
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </div>
      )}
    </section>
  );
}
