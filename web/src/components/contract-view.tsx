import type { ComponentChildren } from "preact";
import { enc, get, type ContractView, type LatestTestResults, type TestResults, type ViewField, type ViewModel, type ViewRule } from "../api.js";
import { Badge, Empty, Table, useLoad } from "../ui.js";
import { Fact, Facts } from "./facts.js";
import { ModelCard } from "./model-tables.js";

/**
 * Everything a contract promises, as the server reads it from any format (`GET …/view`,
 * docs/formats.md): models with keys, classifications and rules in words, then servers, service
 * levels, roles, support, price, terms and context. The page renders; it does not parse formats.
 */

/** What the newest test run against each server found, by `model` and `model.field`. */
export type CheckIndex = Map<string, Array<{ server: string; result: string; name?: string }>>;

/** How many servers' newest runs the page reads to put their checks next to the rules. */
const MAX_SERVERS = 5;

export function useLatestChecks(id: string): CheckIndex {
  const loaded = useLoad(async () => {
    const latest = await get<LatestTestResults>(`/api/datacontracts/${enc(id)}/test-results`);
    const runs = await Promise.all(latest.servers.slice(0, MAX_SERVERS).map((s) => get<TestResults>(`/api/test-results/${enc(s.id)}`).then((run) => ({ server: s.server ?? "any server", run }))));
    const index: CheckIndex = new Map();
    for (const { server, run } of runs) {
      for (const check of run.checks ?? []) {
        if (!check.model) continue;
        const key = check.field ? `${check.model}.${check.field}` : check.model;
        const list = index.get(key) ?? [];
        list.push({ server, result: check.result ?? "unknown", ...(check.name ? { name: check.name } : {}) });
        index.set(key, list);
      }
    }
    return index;
  }, [id]);
  return loaded.data ?? new Map();
}

const RESULT_TONE: Record<string, string> = { passed: "ok", warning: "warn", failed: "bad", error: "bad" };

function Checks({ checks }: { checks?: Array<{ server: string; result: string; name?: string }> }) {
  if (!checks?.length) return null;
  return (
    <div class="checks" aria-label="Latest test results">
      {checks.map((c, i) => (
        <span key={i} class="check" title={c.name}>
          <Badge tone={RESULT_TONE[c.result] ?? "neutral"}>{`${c.server}: ${c.result}`}</Badge>
        </span>
      ))}
    </div>
  );
}

function Rules({ rules }: { rules: ViewRule[] }) {
  if (rules.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="rules">
      {rules.map((r, i) => (
        <li key={i} class="rule">
          <span class="rule-text">{r.text}</span>
          {r.dimension && <span class="muted"> · {r.dimension}</span>}
          {r.severity && <span class="muted"> · {r.severity}</span>}
          {r.query && <code class="query">{r.query}</code>}
        </li>
      ))}
    </ul>
  );
}

function FieldRow({ model, f, checks }: { model: string; f: ViewField; checks: CheckIndex }) {
  return (
    <tr>
      <th scope="row" class={`field-name depth-${Math.min(f.depth, 4)}`}>
        <code>{f.depth > 0 ? f.path : f.name}</code>
        <div class="badges keys">
          {f.primaryKey && <Badge tone="info">primary key</Badge>}
          {f.unique && <Badge tone="info">unique</Badge>}
        </div>
      </th>
      <td data-label="Type">
        <span class="type">{f.logicalType}</span>
        {f.itemsType && <span class="muted"> of {f.itemsType}</span>}
        {f.ref && <span class="muted"> → {f.ref}</span>}
        {f.physicalType && f.physicalType.toLowerCase() !== f.logicalType && <div class="sub">{f.physicalType}</div>}
        {f.constraints.map((c) => (
          <div class="sub" key={c}>
            {c}
          </div>
        ))}
      </td>
      <td data-label="Required">{f.required ? <Badge tone="ok">required</Badge> : <span class="muted">optional</span>}</td>
      <td data-label="Classification">{f.classification ? <Badge tone={/restricted|confidential|sensitive|pii/i.test(f.classification) ? "warn" : "neutral"}>{f.classification}</Badge> : <span class="muted">—</span>}</td>
      <td data-label="Description">
        {f.description ?? (f.values ? null : <span class="muted">—</span>)}
        {f.values && <div class="sub">one of {f.values.map((v) => JSON.stringify(v)).join(", ")}</div>}
      </td>
      <td data-label="Quality">
        <Rules rules={f.rules} />
        <Checks checks={checks.get(`${model}.${f.path}`)} />
      </td>
    </tr>
  );
}

export function ViewModels({ models, checks = new Map() }: { models: ViewModel[]; checks?: CheckIndex }) {
  if (models.length === 0) return <Empty>This contract defines no models (custom schemas are not parsed).</Empty>;
  return (
    <>
      {models.map((m) => (
        <ModelCard key={m.name} model={m}>
          {m.rules.length > 0 && (
            <div class="model-rules">
              <strong>Rules on the whole model</strong>
              <Rules rules={m.rules} />
            </div>
          )}
          <Checks checks={checks.get(m.name)} />
          <Table columns={["Field", "Type", "Required", "Classification", "Description", "Quality"]} caption={`Fields of ${m.name}`} class="fields">
            {m.fields.map((f) => (
              <FieldRow key={f.path} model={m.name} f={f} checks={checks} />
            ))}
          </Table>
        </ModelCard>
      ))}
    </>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section aria-labelledby={id} class="promise">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

const shown = (v: unknown) => (v === null || v === undefined ? "—" : String(v));

/** Servers, service levels, roles, support, price, terms and context: each section only when the contract has it. */
export function Promises({ view }: { view: ContractView }) {
  return (
    <>
      {view.terms.length > 0 && (
        <Section id="terms" title="Terms">
          <Facts look="terms">
            {view.terms.map((t) => (
              <Fact key={t.path} label={t.name === "noticePeriod" ? "Notice period" : t.name[0].toUpperCase() + t.name.slice(1)}>
                {t.text}
              </Fact>
            ))}
          </Facts>
        </Section>
      )}
      {view.sla.length > 0 && (
        <Section id="sla" title="Service levels">
          <Table columns={["Property", "Value", "Applies to", "Description"]} caption="Service levels">
            {view.sla.map((p) => (
              <tr key={p.path}>
                <th scope="row">{p.property}</th>
                <td data-label="Value" class="sla-value">
                  {shown(p.value)}
                  {p.unit ? ` ${p.unit}` : ""}
                </td>
                <td data-label="Applies to">{p.element ?? <span class="muted">the whole contract</span>}</td>
                <td data-label="Description">{p.description ?? <span class="muted">—</span>}</td>
              </tr>
            ))}
          </Table>
        </Section>
      )}
      {view.servers.length > 0 && (
        <Section id="servers" title="Servers">
          <Table columns={["Server", "Type", "Environment", "Connection"]} caption="Servers">
            {view.servers.map((s) => (
              <tr key={s.path}>
                <th scope="row">
                  {s.name}
                  {s.description && <div class="sub">{s.description}</div>}
                </th>
                <td data-label="Type">{s.type ? <Badge tone="info">{s.type}</Badge> : <span class="muted">—</span>}</td>
                <td data-label="Environment">{s.environment ?? <span class="muted">—</span>}</td>
                <td data-label="Connection">
                  {Object.entries(s.details).map(([k, v]) => (
                    <div key={k} class="detail">
                      <span class="muted">{k}</span> <code>{shown(v)}</code>
                    </div>
                  ))}
                  {s.roles.length > 0 && <div class="sub">roles: {s.roles.map((r) => r.role).join(", ")}</div>}
                </td>
              </tr>
            ))}
          </Table>
        </Section>
      )}
      {view.roles.length > 0 && (
        <Section id="roles" title="Roles">
          <Table columns={["Role", "Access", "Approvers", "Description"]} caption="Roles">
            {view.roles.map((r) => (
              <tr key={r.path}>
                <th scope="row">
                  <code>{r.role}</code>
                </th>
                <td data-label="Access">{r.access ?? <span class="muted">—</span>}</td>
                <td data-label="Approvers">
                  {r.firstLevelApprovers && <div>first: {r.firstLevelApprovers}</div>}
                  {r.secondLevelApprovers && <div>then: {r.secondLevelApprovers}</div>}
                  {!r.firstLevelApprovers && !r.secondLevelApprovers && <span class="muted">—</span>}
                </td>
                <td data-label="Description">{r.description ?? <span class="muted">—</span>}</td>
              </tr>
            ))}
          </Table>
        </Section>
      )}
      {(view.support.length > 0 || view.price) && (
        <Section id="support" title="Support and price">
          {view.support.length > 0 && (
            <ul class="support" aria-label="Support channels">
              {view.support.map((s) => (
                <li key={s.path}>
                  {s.url && /^(https?|mailto):/i.test(s.url) ? <a href={s.url}>{s.channel}</a> : <strong>{s.channel}</strong>}
                  {s.tool && <span class="muted"> · {s.tool}</span>}
                  {s.scope && <span class="muted"> · {s.scope}</span>}
                  {s.description && <span> — {s.description}</span>}
                </li>
              ))}
            </ul>
          )}
          {view.price && (
            <p class="price">
              Price:{" "}
              {view.price.amount !== undefined ? (
                <strong>
                  {view.price.amount} {view.price.currency ?? ""}
                  {view.price.unit ? ` per ${view.price.unit}` : ""}
                </strong>
              ) : (
                view.price.text
              )}
            </p>
          )}
        </Section>
      )}
      {view.context && (
        <Section id="context" title="Context for readers and agents">
          {view.context.instructions && <p class="instructions">{view.context.instructions}</p>}
          {view.context.verifiedStatements.length > 0 && (
            <Facts look="verified terms">
              {view.context.verifiedStatements.map((v, i) => (
                <Fact key={i} label={v.question}>
                  {v.answer ?? <span class="muted">no verified answer yet</span>}
                </Fact>
              ))}
            </Facts>
          )}
          {view.context.constraints.length > 0 && (
            <>
              <h3>Must not</h3>
              <ul class="constraints">
                {view.context.constraints.map((c, i) => (
                  <li key={i}>{c}</li>
                ))}
              </ul>
            </>
          )}
        </Section>
      )}
    </>
  );
}
