import { useState } from "preact/hooks";
import { call, enc, get, type Access, type DataProduct, type HistoryEntry, type Provisioning, type Team } from "../api.js";
import { productSummary } from "../documents.js";
import { usePrincipalNames } from "../names.js";
import { canActFor, useSession } from "../session.js";
import { Badge, Dialog, DialogFooter, Empty, ErrorBox, Field, Loading, PageHeader, useLoad, When } from "../ui.js";
import { TONE } from "./activity.js";
import { AccessStart, AccessTable, Consumer } from "./access-parts.js";

type View = "inbox" | "mine" | "all";

/** When the access was canceled (read-only; cancelling sets the end date, not a status). */
const canceledAt = (a: Access): string | undefined => {
  const v = (a.info as Record<string, unknown>).canceledAt;
  return typeof v === "string" ? v : undefined;
};
type Decision = "approve" | "reject" | "cancel";

const DECISIONS: Record<Decision, { title: string; button: string; danger: boolean; done: string; explain: (a: Access) => string }> = {
  approve: {
    title: "Approve access request",
    button: "Approve",
    danger: false,
    done: "Approved",
    explain: (a) => (a.info.startDate ? "The consumer gets access from the start date." : "The consumer gets access now; the platform's connector grants it."),
  },
  reject: {
    title: "Reject access request",
    button: "Reject request",
    danger: true,
    done: "Rejected",
    explain: () => "This cannot be undone: a rejected request is closed, and the consumer has to request again.",
  },
  cancel: {
    title: "Cancel access",
    button: "Cancel access",
    danger: true,
    done: "Canceled",
    explain: (a) => (a.info.active ? "The consumer loses access at the end date you choose, or now." : "The access will not start; it ends at the date you choose, or now."),
  },
};

/** Approve, reject or cancel, with an optional comment kept in the access's history; reject and cancel ask first. */
export function DecisionDialog({ access, decision, onClose, onDone }: { access: Access | null; decision: Decision | null; onClose: () => void; onDone: (message: string) => void }) {
  const [comment, setComment] = useState("");
  const [endDate, setEndDate] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const d = decision ? DECISIONS[decision] : undefined;
  const close = () => {
    setComment("");
    setEndDate("");
    setError(undefined);
    onClose();
  };
  return (
    <Dialog open={!!access && !!d} title={d?.title ?? ""} onClose={close}>
      {access && d && decision && (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(undefined);
            try {
              const body: Record<string, string> = {};
              if (comment.trim()) body.comment = comment.trim();
              if (decision === "cancel" && endDate) body.endDate = endDate;
              const result = await call<Access>("POST", `/api/access/${enc(access.id)}/${decision}`, body);
              const state = result?.info?.active ? "It is active." : decision === "approve" && result?.info?.startDate ? "It becomes active on its start date." : "";
              onDone(`${d.done}: “${access.info.purpose}”. ${state}`.trim());
              close();
            } catch (err) {
              setError(err);
            } finally {
              setBusy(false);
            }
          }}
        >
          <div class="dialog-body">
            <p>
              <strong>“{access.info.purpose}”</strong>
            </p>
            <p>{d.explain(access)}</p>
            {decision === "cancel" && (
              <Field label="End date (optional)" id="cancel-end" hint="Empty: ends now. A later date than the current end is not allowed.">
                <input id="cancel-end" type="date" value={endDate} onInput={(e) => setEndDate(e.currentTarget.value)} />
              </Field>
            )}
            <Field label="Comment (optional)" id="decision-comment" hint="Kept in the access's history with your name.">
              <textarea id="decision-comment" rows={3} maxLength={2000} value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
            </Field>
            <ErrorBox error={error} labels={{ comment: "The comment", endDate: "The end date" }} />
          </div>
          <DialogFooter submit={d.button} cancel="Back" onCancel={close} tone={d.danger ? "danger" : "primary"} busy={busy} />
        </form>
      )}
    </Dialog>
  );
}

export function AccessInbox() {
  const { session } = useSession();
  const accesses = useLoad(() => get<Access[]>("/api/access"), []);
  const products = useLoad(() => get<DataProduct[]>("/api/dataproducts"), []);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const [view, setView] = useState<View>("inbox");
  const [deciding, setDeciding] = useState<{ access: Access; decision: Decision } | null>(null);
  const [notice, setNotice] = useState("");
  const ownerOf = (productId?: string) => {
    const p = products.data?.find((x) => x.id === productId);
    return p ? productSummary(p).owner : undefined;
  };
  const consumerTeam = (a: Access) => a.consumer.teamId ?? ownerOf(a.consumer.dataProductId);
  const all = [...(accesses.data ?? [])].reverse();
  const inbox = all.filter((a) => a.info.status === "requested" && canActFor(session, a.provider.teamId));
  const mine = all.filter((a) => (session.scope === "organization" ? true : session.teamIds.includes(consumerTeam(a) ?? "")));
  const shown = view === "inbox" ? inbox : view === "mine" ? mine : all;

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
      {notice && (
        <p class="alert info" role="status">
          {notice}
        </p>
      )}
      <ErrorBox error={accesses.error} />
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
                <button type="button" class="primary small" onClick={() => setDeciding({ access: a, decision: "approve" })}>
                  Approve<span class="visually-hidden"> “{a.info.purpose}”</span>
                </button>
                <button type="button" class="small" onClick={() => setDeciding({ access: a, decision: "reject" })}>
                  Reject<span class="visually-hidden"> “{a.info.purpose}”</span>
                </button>
              </>
            )
          }
        />
      )}
      <DecisionDialog
        access={deciding?.access ?? null}
        decision={deciding?.decision ?? null}
        onClose={() => setDeciding(null)}
        onDone={(message) => {
          setNotice(message);
          accesses.reload();
        }}
      />
    </>
  );
}

const STEPS: Array<{ key: string; label: string }> = [
  { key: "requested", label: "Requested" },
  { key: "decided", label: "Decided" },
  { key: "active", label: "Active" },
];

function Lifecycle({ access }: { access: Access }) {
  const s = access.info.status ?? "requested";
  const canceled = !!canceledAt(access);
  const decided = s === "approved" || s === "rejected";
  const labels: Record<string, string> = {
    requested: "Requested",
    decided: s === "requested" ? "Waiting for approval" : s[0].toUpperCase() + s.slice(1),
    active: access.info.active ? (canceled ? "Active until its end" : "Active") : canceled ? "Canceled" : "Not active",
  };
  const done: Record<string, boolean> = { requested: true, decided, active: !!access.info.active };
  return (
    <ol class="steps" aria-label="Lifecycle">
      {STEPS.map((step) => (
        <li key={step.key} class={`${done[step.key] ? "done" : ""} ${(step.key === "decided" && s === "rejected") || (step.key === "active" && canceled && !access.info.active) ? "stopped" : ""}`}>
          <span class="step-label">{labels[step.key]}</span>
        </li>
      ))}
    </ol>
  );
}

const kindOf = (e: HistoryEntry) => e.kind.replace(/^Access/, "").replace(/Event$/, "").replace(/([a-z])([A-Z])/g, "$1 $2");

export function AccessPage({ id }: { id: string }) {
  const { session } = useSession();
  const nameOf = usePrincipalNames();
  const access = useLoad(() => get<Access>(`/api/access/${enc(id)}`), [id]);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const provisioning = useLoad(() => get<Provisioning>(`/api/access/${enc(id)}/provisioning`).catch(() => null), [id, access.data]);
  const history = useLoad(() => get<HistoryEntry[]>(`/api/access/${enc(id)}/history`), [id, access.data]);
  const [decision, setDecision] = useState<Decision | null>(null);
  const [notice, setNotice] = useState("");
  if (access.loading && !access.data) return <Loading />;
  if (!access.data) return <ErrorBox error={access.error} />;
  const a = access.data;
  const provider = canActFor(session, a.provider.teamId);
  const consumerTeam = a.consumer.teamId;
  const consumer = session.scope === "organization" || (!!consumerTeam && session.teamIds.includes(consumerTeam));
  const canceled = !!canceledAt(a);
  const ended = !!a.info.endDate && Date.parse(a.info.endDate.length === 10 ? `${a.info.endDate}T00:00:00Z` : a.info.endDate) <= Date.now();
  const activatedAt = [...(history.data ?? [])].reverse().find((e) => kindOf(e) === "Activated")?.time;
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
                <button type="button" class="primary" onClick={() => setDecision("approve")}>
                  Approve
                </button>
                <button type="button" onClick={() => setDecision("reject")}>
                  Reject
                </button>
              </>
            )}
            {a.info.status === "approved" && !canceled && !ended && (provider || consumer) && (
              <button type="button" class="danger" onClick={() => setDecision("cancel")}>
                Cancel access
              </button>
            )}
          </>
        }
      />
      {notice && (
        <p class="alert info" role="status">
          {notice}
        </p>
      )}
      <Lifecycle access={a} />
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <Badge>{a.info.status}</Badge> {a.info.active ? <Badge tone="ok">active</Badge> : <Badge tone="neutral">inactive</Badge>}
            {canceled && (
              <>
                {" "}
                <Badge tone="neutral">canceled</Badge>
              </>
            )}
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
          <dt>{activatedAt && !a.info.startDate ? "Active since" : "Start"}</dt>
          <dd>
            <AccessStart access={a} activatedAt={activatedAt} />
          </dd>
        </div>
        <div>
          <dt>End</dt>
          <dd>
            <When value={a.info.endDate} empty="open-ended" />
          </dd>
        </div>
        {canceled && (
          <div>
            <dt>Canceled</dt>
            <dd>
              <When value={canceledAt(a)} />
            </dd>
          </div>
        )}
      </dl>
      <section aria-labelledby="history">
        <h2 id="history">History</h2>
        <ErrorBox error={history.error} title="The history could not be read" />
        {history.data && history.data.length > 0 ? (
          <ol class="timeline history" aria-label="History, oldest first">
            {history.data.map((e, i) => {
              const kind = kindOf(e);
              return (
                <li key={e.id ?? i}>
                  <When value={e.time} />
                  <span class="what">
                    <Badge tone={TONE[kind.replace(/ .*/, "")] ?? "neutral"}>{kind}</Badge>
                  </span>
                  <span class="subject">
                    <span class="actor">by {nameOf(e.principal, e.principalName)}</span>
                    {e.comment && <q class="comment">{e.comment}</q>}
                  </span>
                </li>
              );
            })}
          </ol>
        ) : (
          !history.loading && <p class="muted">No events.</p>
        )}
      </section>
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
                <When value={p.updatedAt as string | undefined} />
              </dd>
            </div>
          </dl>
        ) : (
          <Empty>No connector has reported provisioning for this access yet.</Empty>
        )}
      </section>
      <DecisionDialog
        access={decision ? a : null}
        decision={decision}
        onClose={() => setDecision(null)}
        onDone={(message) => {
          setNotice(message);
          access.reload();
        }}
      />
    </>
  );
}
