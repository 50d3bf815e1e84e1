import { useState } from "preact/hooks";
import { call, enc, get, pagePath, type Certification, type ClassificationScheme, type DryRun, type Policy, type PageKind } from "../api.js";
import { Badge, Empty, ErrorBox, Loading, PageHeader, Table, useLoad } from "../ui.js";

/** Policies with their rules, classification schemes and certifications (docs/policies.md). */

const SECTIONS: Array<{ kind: PageKind; label: string }> = [
  { kind: "policies", label: "Policies" },
  { kind: "classification-schemes", label: "Classification schemes" },
  { kind: "certifications", label: "Certifications" },
];

/** The governance menu entry covers these pages. */
export const GOVERNANCE_KINDS = SECTIONS.map((s) => s.kind);

function GovernanceNav({ current }: { current: PageKind }) {
  return (
    <nav class="subnav" aria-label="Governance">
      {SECTIONS.map((s) => (
        <a key={s.kind} href={`/${s.kind}`} aria-current={s.kind === current ? "page" : undefined}>
          {s.label}
        </a>
      ))}
    </nav>
  );
}

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
      <ErrorBox error={policies.error} />
      {policies.loading && !policies.data ? (
        <Loading />
      ) : policies.data?.length === 0 ? (
        <Empty>No policies yet.</Empty>
      ) : (
        <Table columns={["Policy", "Status", "Rule"]} caption="Policies">
          {policies.data?.map((p) => (
            <tr key={p.id}>
              <td>
                <a class="strong" href={pagePath("policies", p.id)}>
                  {p.name}
                </a>
                <div class="sub">
                  <code>{p.id}</code>
                </div>
              </td>
              <td data-label="Status">
                <Badge tone={STATUS_TONE[p.status ?? "Draft"]}>{p.status ?? "Draft"}</Badge>
              </td>
              <td data-label="Rule">{p.rule ? `${EFFECT_WORDS[p.rule.effect]} at ${p.rule.gates.join(", ")}` : <span class="muted">prose only</span>}</td>
            </tr>
          ))}
        </Table>
      )}
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
      {p.content && (
        <section aria-labelledby="content">
          <h2 id="content">What it says</h2>
          <p class="prose">{p.content}</p>
        </section>
      )}
      {p.rule ? (
        <section aria-labelledby="rule">
          <h2 id="rule">Rule</h2>
          <dl class="facts">
            <dt>Effect</dt>
            <dd>
              {p.rule.effect}
              {p.rule.approvals ? ` (${p.rule.approvals.count} distinct approvers)` : ""}
            </dd>
            <dt>Gates</dt>
            <dd>{p.rule.gates.join(", ")}</dd>
            {p.rule.message && (
              <>
                <dt>Message</dt>
                <dd>{p.rule.message}</dd>
              </>
            )}
          </dl>
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

export function ClassificationSchemeList() {
  const schemes = useLoad(() => get<ClassificationScheme[]>("/api/classification-schemes"), []);
  return (
    <>
      <GovernanceNav current="classification-schemes" />
      <PageHeader title="Classification schemes">
        <p class="lead">Ordered tiers that classify data; the default scheme fills the standard classification field.</p>
      </PageHeader>
      <ErrorBox error={schemes.error} />
      {schemes.loading && !schemes.data ? (
        <Loading />
      ) : schemes.data?.length === 0 ? (
        <Empty>No classification schemes yet.</Empty>
      ) : (
        schemes.data?.map((s) => (
          <section key={s.id} aria-labelledby={`scheme-${s.id}`}>
            <h2 id={`scheme-${s.id}`}>
              {s.name} {s.customProperty === "classification" && <Badge tone="ok">default</Badge>}
            </h2>
            {s.description && <p>{s.description}</p>}
            <Table columns={["Tier", "Level", "Description"]} caption={`Tiers of ${s.name}`}>
              {(s.classifications ?? []).map((c) => (
                <tr key={c.externalId}>
                  <td>
                    {c.name} <code class="sub">{c.externalId}</code>
                  </td>
                  <td data-label="Level">{c.level ?? "—"}</td>
                  <td data-label="Description">{c.description ?? ""}</td>
                </tr>
              ))}
            </Table>
          </section>
        ))
      )}
    </>
  );
}

export function CertificationList() {
  const certifications = useLoad(() => get<Certification[]>("/api/certifications"), []);
  return (
    <>
      <GovernanceNav current="certifications" />
      <PageHeader title="Certifications">
        <p class="lead">Quality levels a data product holds by carrying their tag. Restricted ones are assigned by the organization only.</p>
      </PageHeader>
      <ErrorBox error={certifications.error} />
      {certifications.loading && !certifications.data ? (
        <Loading />
      ) : certifications.data?.length === 0 ? (
        <Empty>No certifications yet.</Empty>
      ) : (
        <Table columns={["Certification", "Tag", "Criteria"]} caption="Certifications">
          {[...(certifications.data ?? [])]
            .sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity))
            .map((c) => (
              <tr key={c.id}>
                <td>
                  {c.name} {c.restricted && <Badge tone="warn">restricted</Badge>}
                  {c.description && <div class="sub">{c.description}</div>}
                </td>
                <td data-label="Tag">
                  <code>{c.tag}</code>
                </td>
                <td data-label="Criteria">{c.criteria ?? ""}</td>
              </tr>
            ))}
        </Table>
      )}
    </>
  );
}

/** The certifications a data product holds: those whose tag it carries. */
export function ProductCertifications({ tags }: { tags: readonly string[] }) {
  const certifications = useLoad(() => get<Certification[]>("/api/certifications"), []);
  const held = (certifications.data ?? []).filter((c) => tags.includes(c.tag));
  if (held.length === 0) return null;
  return (
    <p aria-label="Certifications">
      {held.map((c) => (
        <Badge key={c.id} tone="ok">
          {`${c.name} certified`}
        </Badge>
      ))}
    </p>
  );
}

type Verdict = { policyId: string; name: string; effect: string; gate: string; message?: string; error?: string; read: Record<string, unknown>; count?: number };

/**
 * What each policy said about an access, from its history: shown on the access's page, so the
 * person approving sees it before they act, with how many approvals it has and needs.
 */
export function PolicyVerdicts({ history }: { history: ReadonlyArray<{ kind: string; data?: Record<string, unknown> }> }) {
  const latest = new Map<string, Verdict>();
  let approvals: { given: number; needed: number } | undefined;
  for (const entry of history) {
    for (const v of (entry.data?.verdicts as Verdict[] | undefined) ?? []) latest.set(`${v.policyId}:${v.gate}`, v);
    if (entry.data?.approvals) approvals = entry.data.approvals as { given: number; needed: number };
  }
  if (latest.size === 0 && !approvals) return null;
  return (
    <section aria-labelledby="policy-verdicts">
      <h2 id="policy-verdicts">What the policies say</h2>
      {approvals && (
        <p>
          {approvals.given} of {approvals.needed} required approvals given.
        </p>
      )}
      <ul class="plain-list">
        {[...latest.values()].map((v) => (
          <li key={`${v.policyId}:${v.gate}`}>
            <a href={pagePath("policies", v.policyId)}>{v.name}</a> <Badge tone={v.effect === "warn" ? "warn" : undefined}>{v.effect === "require-approvals" ? `needs ${v.count ?? 1} approvals` : v.effect}</Badge>{" "}
            at {v.gate}
            {v.message && <>: {v.message}</>}
            <div class="sub">
              read <code>{JSON.stringify(v.read)}</code>
              {v.error && <> ({v.error})</>}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
