import { useState } from "preact/hooks";
import { call, enc, get, type Access, type DataProduct, type Provisioning, type Team } from "../api.js";
import { canActFor, useSession } from "../session.js";
import { Badge, Confirm, Empty, ErrorBox, Field, Loading, PageHeader, useLoad, When } from "../ui.js";
import { readRecent, describe, TONE } from "./activity.js";
import { AccessTable, Consumer } from "./dataproducts.js";

type View = "inbox" | "mine" | "all";

export function AccessInbox() {
  const { session } = useSession();
  const accesses = useLoad(() => get<Access[]>("/api/access"), []);
  const products = useLoad(() => get<DataProduct[]>("/api/dataproducts"), []);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const [view, setView] = useState<View>("inbox");
  const [error, setError] = useState<unknown>();
  const [rejecting, setRejecting] = useState<Access | null>(null);
  const ownerOf = (productId?: string) => products.data?.find((p) => p.id === productId)?.info.owner;
  const consumerTeam = (a: Access) => a.consumer.teamId ?? ownerOf(a.consumer.dataProductId);
  const all = [...(accesses.data ?? [])].reverse();
  const inbox = all.filter((a) => a.info.status === "requested" && canActFor(session, a.provider.teamId));
  const mine = all.filter((a) => session.scope === "organization" ? true : session.teamIds.includes(consumerTeam(a) ?? ""));
  const shown = view === "inbox" ? inbox : view === "mine" ? mine : all;

  const approve = async (a: Access) => {
    setError(undefined);
    try {
      await call("POST", `/api/access/${enc(a.id)}/approve`);
      accesses.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <PageHeader title="Access requests">
        <p class="lead">Requests for data from your teams' output ports wait here for a decision.</p>
      </PageHeader>
      <div class="tabs" role="group" aria-label="Which requests">
        {(
          [
            ["inbox", `Inbox (${inbox.length})`],
            ["mine", session.scope === "organization" ? "Requested by any team" : "Requested by your teams"],
            ["all", "All requests"],
          ] as const
        ).map(([v, label]) => (
          <button type="button" key={v} aria-pressed={view === v} onClick={() => setView(v)}>
            {label}
          </button>
        ))}
      </div>
      <ErrorBox error={accesses.error ?? error} />
      {accesses.loading && !accesses.data ? (
        <Loading />
      ) : shown.length === 0 ? (
        <Empty>{view === "inbox" ? "Nothing waits for your decision." : "No access requests."}</Empty>
      ) : (
        <AccessTable
          accesses={shown}
          teams={teams.data}
          actions={(a) =>
            a.info.status === "requested" &&
            canActFor(session, a.provider.teamId) && (
              <>
                <button type="button" class="primary small" onClick={() => approve(a)}>
                  Approve<span class="visually-hidden"> “{a.info.purpose}”</span>
                </button>
                <button type="button" class="small" onClick={() => setRejecting(a)}>
                  Reject<span class="visually-hidden"> “{a.info.purpose}”</span>
                </button>
              </>
            )
          }
        />
      )}
      <Confirm
        open={rejecting !== null}
        title="Reject access request"
        confirmLabel="Reject request"
        danger
        onClose={() => setRejecting(null)}
        onConfirm={async () => {
          await call("POST", `/api/access/${enc(rejecting!.id)}/reject`);
          accesses.reload();
        }}
      >
        <p>
          Reject “{rejecting?.info.purpose}”? The consumer will have to request again.
        </p>
      </Confirm>
    </>
  );
}

const STEPS: Array<{ key: string; label: string }> = [
  { key: "requested", label: "Requested" },
  { key: "decided", label: "Decided" },
  { key: "active", label: "Active" },
];

function Lifecycle({ access }: { access: Access }) {
  const s = access.info.status;
  const decided = s === "approved" || s === "rejected" || s === "canceled";
  const labels: Record<string, string> = { requested: "Requested", decided: s === "requested" ? "Waiting for approval" : s[0].toUpperCase() + s.slice(1), active: access.info.active ? "Active" : "Not active" };
  const done: Record<string, boolean> = { requested: true, decided, active: access.info.active };
  return (
    <ol class="steps" aria-label="Lifecycle">
      {STEPS.map((step) => (
        <li key={step.key} class={`${done[step.key] ? "done" : ""} ${step.key === "decided" && (s === "rejected" || s === "canceled") ? "stopped" : ""}`}>
          <span class="step-label">{labels[step.key]}</span>
        </li>
      ))}
    </ol>
  );
}

export function AccessPage({ id }: { id: string }) {
  const { session } = useSession();
  const access = useLoad(() => get<Access>(`/api/access/${enc(id)}`), [id]);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const provisioning = useLoad(() => get<Provisioning>(`/api/access/${enc(id)}/provisioning`).catch(() => null), [id, access.data]);
  const history = useLoad(async () => (await readRecent(1000, id)).filter((e) => e.type.includes("Access")), [id, access.data]);
  const [error, setError] = useState<unknown>();
  const [confirm, setConfirm] = useState<"reject" | "cancel" | null>(null);
  const [endDate, setEndDate] = useState("");
  if (access.loading && !access.data) return <Loading />;
  if (!access.data) return <ErrorBox error={access.error} />;
  const a = access.data;
  const provider = canActFor(session, a.provider.teamId);
  const act = async (action: string, body?: unknown) => {
    setError(undefined);
    await call("POST", `/api/access/${enc(a.id)}/${action}`, body);
    access.reload();
  };
  const p = provisioning.data;
  return (
    <>
      <PageHeader
        title={a.info.purpose}
        kicker={<a href="/access">Access requests</a>}
        actions={
          <>
            {a.info.status === "requested" && provider && (
              <>
                <button type="button" class="primary" onClick={() => act("approve").catch(setError)}>
                  Approve
                </button>
                <button type="button" onClick={() => setConfirm("reject")}>
                  Reject
                </button>
              </>
            )}
            {(a.info.status === "requested" || a.info.status === "approved") && (
              <button type="button" class="danger" onClick={() => setConfirm("cancel")}>
                Cancel access
              </button>
            )}
          </>
        }
      />
      <ErrorBox error={error} title="The action failed" />
      <Lifecycle access={a} />
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <Badge>{a.info.status}</Badge> {a.info.active ? <Badge tone="ok">active</Badge> : <Badge tone="neutral">inactive</Badge>}
          </dd>
        </div>
        <div>
          <dt>Data product</dt>
          <dd>
            <a href={`/dataproducts/${enc(a.provider.dataProductId)}`}>{a.provider.dataProductId}</a>
          </dd>
        </div>
        <div>
          <dt>Output port</dt>
          <dd>
            <code>{a.provider.outputPortId}</code>
          </dd>
        </div>
        <div>
          <dt>Data contract</dt>
          <dd>{a.provider.dataContractId ? <a href={`/datacontracts/${enc(a.provider.dataContractId)}`}>{a.provider.dataContractId}</a> : "—"}</dd>
        </div>
        <div>
          <dt>Consumer</dt>
          <dd>
            <Consumer access={a} teams={teams.data} />
          </dd>
        </div>
        <div>
          <dt>Start</dt>
          <dd>
            <When value={a.info.startDate} empty="when approved" />
          </dd>
        </div>
        <div>
          <dt>End</dt>
          <dd>
            <When value={a.info.endDate} empty="open-ended" />
          </dd>
        </div>
      </dl>
      <section aria-labelledby="provisioning">
        <h2 id="provisioning">Provisioning</h2>
        {p ? (
          <dl class="facts compact">
            <div>
              <dt>Status</dt>
              <dd>
                <Badge>{p.status}</Badge>
              </dd>
            </div>
            {p.platform && (
              <div>
                <dt>Platform</dt>
                <dd>{p.platform}</dd>
              </div>
            )}
            {p.executor && (
              <div>
                <dt>Executor</dt>
                <dd>{p.executor}</dd>
              </div>
            )}
            {p.reference && (
              <div>
                <dt>Reference</dt>
                <dd>
                  <code>{p.reference}</code>
                </dd>
              </div>
            )}
            <div>
              <dt>Updated</dt>
              <dd>
                <When value={p.updatedAt} />
              </dd>
            </div>
          </dl>
        ) : (
          <p class="muted">No connector has reported provisioning for this access yet.</p>
        )}
      </section>
      <section aria-labelledby="history">
        <h2 id="history">History</h2>
        {history.data && history.data.length > 0 ? (
          <ol class="timeline compact">
            {history.data.map((e) => (
              <li key={e.id}>
                <When value={e.time} />
                <span class="what">
                  <Badge tone={TONE[describe(e).action] ?? "neutral"}>{describe(e).action}</Badge>
                </span>
                <span class="subject">{e.data.status && <span class="muted">{e.data.status}</span>}</span>
              </li>
            ))}
          </ol>
        ) : (
          !history.loading && <p class="muted">No events.</p>
        )}
      </section>
      <Confirm open={confirm === "reject"} title="Reject access request" confirmLabel="Reject request" danger onClose={() => setConfirm(null)} onConfirm={() => act("reject")}>
        <p>Reject “{a.info.purpose}”? This cannot be undone; the consumer will have to request again.</p>
      </Confirm>
      <Confirm
        open={confirm === "cancel"}
        title="Cancel access"
        confirmLabel="Cancel access"
        danger
        onClose={() => setConfirm(null)}
        onConfirm={() => act("cancel", endDate ? { endDate } : undefined)}
      >
        <p>{a.info.active ? "The consumer loses access at the end date, or now if you leave it empty." : "The request is withdrawn."}</p>
        {a.info.status === "approved" && (
          <Field label="End date (optional)" id="cancel-end" hint="Empty: ends now.">
            <input id="cancel-end" type="date" value={endDate} onInput={(e) => setEndDate(e.currentTarget.value)} />
          </Field>
        )}
      </Confirm>
    </>
  );
}
