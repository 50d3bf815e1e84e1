import { useState } from "preact/hooks";
import { call, enc, get, type Access, type DataProduct, type Team } from "../api.js";
import { productSummary, type PortSummary } from "../documents.js";
import { navigate } from "../router.js";
import { canActFor, useSession } from "../session.js";
import { Dialog, DialogFooter } from "../dialogs.js";
import { Badge, ErrorBox, Field, TeamOptions, useLoad, When, Table } from "../ui.js";
import { TeamLink, teamName } from "./catalog-links.js";

export function AccessTable({ accesses, teams, actions }: { accesses: Access[]; teams?: Team[]; actions?: (a: Access) => preact.ComponentChildren }) {
  return (
    <Table columns={["Purpose", "Output port", "Consumer", "Status", "Dates", "Provisioning", !!actions && ""]}>
      {accesses.map((a) => (
        <tr key={a.id}>
          <td>
            <a href={`/access/${enc(a.id)}`} class="strong">
              {a.info.purpose}
            </a>
          </td>
          <td data-label="Output port">
            <a href={`/dataproducts/${enc(a.provider.dataProductId)}`}>{a.provider.dataProductId}</a>
            <div class="sub nowrap">{a.provider.outputPortId}</div>
          </td>
          <td data-label="Consumer">
            <Consumer access={a} teams={teams} />
          </td>
          <td data-label="Status">
            <Badge>{a.info.status}</Badge> {a.info.active && <Badge tone="ok">active</Badge>}
          </td>
          <td class="dates" data-label="Dates">
            <AccessDates access={a} />
          </td>
          <td data-label="Provisioning">{a.provisioning ? <Badge>{a.provisioning.status}</Badge> : <span class="muted">not reported</span>}</td>
          {actions && <td class="row-actions">{actions(a)}</td>}
        </tr>
      ))}
    </Table>
  );
}

/**
 * When an access starts and ends, in words: a request without a start date starts "on approval",
 * an approved one at its start date (or when it was activated, when that is known), and one
 * without an end date is "open-ended".
 */
export function AccessDates({ access, activatedAt }: { access: Access; activatedAt?: string }) {
  return (
    <>
      <AccessStart access={access} activatedAt={activatedAt} /> → <When value={access.info.endDate} empty="open-ended" />
    </>
  );
}

export function AccessStart({ access, activatedAt }: { access: Access; activatedAt?: string }) {
  const { status, startDate } = access.info;
  if (startDate) return <When value={startDate} />;
  if (status === "rejected") return <span class="muted">never</span>;
  if (status === "approved" && activatedAt) return <When value={activatedAt} />;
  if (status === "approved") return <span>on approval</span>;
  return <span class="muted">on approval</span>;
}

export function Consumer({ access, teams }: { access: Access; teams?: Team[] }) {
  const c = access.consumer;
  if (c.dataProductId) return <a href={`/dataproducts/${enc(c.dataProductId)}`}>{c.dataProductId}</a>;
  if (c.teamId) return <TeamLink teams={teams} id={c.teamId} />;
  return <span>{c.userId ?? "—"}</span>;
}

export function RequestAccessDialog({ product, port, teams, onClose }: { product: DataProduct; port: PortSummary | null; teams: Team[]; onClose: () => void }) {
  const { session } = useSession();
  const summary = productSummary(product);
  const mine = teams.filter((t) => canActFor(session, t.id) && t.id !== summary.owner);
  const [kind, setKind] = useState<"team" | "dataProduct">("team");
  const [teamId, setTeamId] = useState("");
  const [dataProductId, setDataProductId] = useState("");
  const [purpose, setPurpose] = useState("");
  const [startDate, setStartDate] = useState("");
  const [endDate, setEndDate] = useState("");
  const [error, setError] = useState<unknown>();
  const products = useLoad(() => (port && kind === "dataProduct" ? get<DataProduct[]>("/api/dataproducts") : Promise.resolve([])), [port, kind]);
  const consumerProducts = (products.data ?? []).filter((p) => p.id !== product.id && canActFor(session, productSummary(p).owner));
  const team = teamId || mine[0]?.id || "";
  const dp = dataProductId || consumerProducts[0]?.id || "";
  return (
    <Dialog open={port !== null} title={`Request access to ${port?.name || port?.id || "this output port"}`} onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          try {
            const created = await call<Access>("POST", "/api/access", {
              info: { purpose, ...(startDate ? { startDate } : {}), ...(endDate ? { endDate } : {}) },
              provider: { dataProductId: product.id, outputPortId: port!.id },
              consumer: kind === "team" ? { teamId: team } : { dataProductId: dp },
            });
            onClose();
            navigate(`/access/${enc(created.id)}`);
          } catch (err) {
            setError(err);
          }
        }}
      >
        <div class="dialog-body">
          <p class="muted">
            {summary.title} → {port?.name || port?.id}. The owning team ({teamName(teams, summary.owner)}) decides{port?.autoApprove ? "; this port approves requests automatically" : ""}.
          </p>
          <fieldset class="choice">
            <legend>Who will use the data?</legend>
            <label>
              <input type="radio" name="kind" value="team" checked={kind === "team"} onChange={() => setKind("team")} /> A team
            </label>
            <label>
              <input type="radio" name="kind" value="dataProduct" checked={kind === "dataProduct"} onChange={() => setKind("dataProduct")} /> A data product
            </label>
          </fieldset>
          {kind === "team" ? (
            <Field label="Consumer team" id="consumer-team">
              <select id="consumer-team" required value={team} onChange={(e) => setTeamId(e.currentTarget.value)}>
                {mine.length === 0 && <option value="">You act for no other team</option>}
                <TeamOptions teams={mine} />
              </select>
            </Field>
          ) : (
            <Field label="Consumer data product" id="consumer-product">
              <select id="consumer-product" required value={dp} onChange={(e) => setDataProductId(e.currentTarget.value)}>
                {consumerProducts.length === 0 && <option value="">No data product of your teams</option>}
                {consumerProducts.map((p) => (
                  <option value={p.id} key={p.id}>
                    {productSummary(p).title}
                  </option>
                ))}
              </select>
            </Field>
          )}
          <Field label="Purpose" id="purpose" hint="Why you need the data; the providing team reads this.">
            <textarea id="purpose" required rows={3} value={purpose} onInput={(e) => setPurpose(e.currentTarget.value)} />
          </Field>
          <div class="row">
            <Field label="Start date (optional)" id="start" hint="Empty: on approval.">
              <input id="start" type="date" value={startDate} onInput={(e) => setStartDate(e.currentTarget.value)} />
            </Field>
            <Field label="End date (optional)" id="end" hint="Empty: open-ended, until canceled.">
              <input id="end" type="date" value={endDate} onInput={(e) => setEndDate(e.currentTarget.value)} />
            </Field>
          </div>
          <ErrorBox error={error} title="The request was not sent" labels={{ "info.purpose": "The purpose", "info.startDate": "The start date", "info.endDate": "The end date", "consumer.teamId": "The consumer team", "consumer.dataProductId": "The consumer data product" }} />
        </div>
        <DialogFooter submit="Send request" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
