import { useState } from "preact/hooks";
import { call, enc, get, getAll, withQuery, type Access, type Session, type DataProduct, type HistoryEntry, type Provisioning, type Team } from "../api.js";
import { productSummary } from "../documents.js";
import { usePrincipalNames } from "../names.js";
import { canActFor, useSession } from "../session.js";
import { navigate } from "../router.js";
import { Confirm } from "../dialogs.js";
import { Badge, Empty, ErrorBox, Loading, PageHeader, useLoad, When } from "../ui.js";
import { AccessStart, AccessTable, Consumer } from "../components/access-parts.js";
import { DecisionDialog, type Decision } from "../components/access-decisions.js";
import { AccessPrivileges, ProvisioningDiagnostics } from "../components/access-privileges.js";
import { UsagePanel } from "../components/usage-panel.js";
import { AccessPolicies } from "../components/access-policies.js";
import { EVENT_TONES } from "../components/event-tones.js";
import { Fact, Facts } from "../components/facts.js";

type View = "inbox" | "mine" | "all";

/** When the access was canceled (read-only; cancelling sets the end date, not a status). */
const canceledAt = (a: Access): string | undefined => {
  const v = (a.info as Record<string, unknown>).canceledAt;
  return typeof v === "string" ? v : undefined;
};

/**
 * What waits for this person's decision, asked of the server: every requested access their teams
 * provide (all of them for an owner), page after page, newest first. A filter over one page of
 * every access would miss the newest requests of a large organization.
 */
async function awaitingDecision(session: Session): Promise<Access[]> {
  const lists =
    session.scope === "organization"
      ? [await getAll<Access>(withQuery("/api/access", { status: "requested" }))]
      : await Promise.all(session.teamIds.map((teamId) => getAll<Access>(withQuery("/api/access", { status: "requested", providerTeamId: teamId }))));
  const byId = new Map(lists.flat().map((a) => [a.id, a]));
  return [...byId.values()].reverse();
}

export function AccessInbox() {
  const { session } = useSession();
  const accesses = useLoad(() => get<Access[]>("/api/access"), []);
  const awaiting = useLoad(() => awaitingDecision(session), [session.scope, session.teamIds.join(",")]);
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
  const inbox = awaiting.data ?? [];
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
      <ErrorBox error={view === "inbox" ? awaiting.error : accesses.error} />
      {(view === "inbox" ? awaiting.loading && !awaiting.data : accesses.loading && !accesses.data) ? (
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
          awaiting.reload();
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
  const history = useLoad(() => get<HistoryEntry[]>(`/api/access/${enc(id)}/history`), [id, access.data]);
  const [decision, setDecision] = useState<Decision | null>(null);
  const [notice, setNotice] = useState("");
  const [withdrawing, setWithdrawing] = useState(false);
  if (access.loading && !access.data) return <Loading />;
  if (!access.data) return <ErrorBox error={access.error} />;
  const a = access.data;
  const provider = canActFor(session, a.provider.teamId);
  const consumerTeam = a.consumer.teamId;
  const consumer = session.scope === "organization" || (!!consumerTeam && session.teamIds.includes(consumerTeam));
  const canceled = !!canceledAt(a);
  const ended = !!a.info.endDate && Date.parse(a.info.endDate.length === 10 ? `${a.info.endDate}T00:00:00Z` : a.info.endDate) <= Date.now();
  const activatedAt = [...(history.data ?? [])].reverse().find((e) => kindOf(e) === "Activated")?.time;
  // The access carries its provisioning record (null until a connector reports): nothing to ask for, no 404 to log.
  const p = (a.provisioning ?? null) as Provisioning | null;
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
            {a.info.status === "requested" && consumer && (
              <button type="button" class="danger" onClick={() => setWithdrawing(true)}>
                Withdraw request
              </button>
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
      <Facts>
        <Fact label="Status">
          <Badge>{a.info.status}</Badge> {a.info.active ? <Badge tone="ok">active</Badge> : <Badge tone="neutral">inactive</Badge>}
          {canceled && (
            <>
              {" "}
              <Badge tone="neutral">canceled</Badge>
            </>
          )}
        </Fact>
        <Fact label="Data product">
          <a href={`/dataproducts/${enc(a.provider.dataProductId)}`}>{a.provider.dataProductId}</a>
        </Fact>
        <Fact label="Output port">
          <code>{a.provider.outputPortId}</code>
        </Fact>
        <Fact label="Data contract">
          {a.provider.dataContractId ? <a href={`/datacontracts/${enc(a.provider.dataContractId)}`}>{a.provider.dataContractId}</a> : "—"}
          {a.provider.dataContractId && a.provider.dataContractVersion && (
            <div class="sub">
              granted under{" "}
              <a href={`/datacontracts/${enc(a.provider.dataContractId)}?version=${encodeURIComponent(a.provider.dataContractVersion)}#versions`}>version {a.provider.dataContractVersion}</a>
            </div>
          )}
        </Fact>
        <Fact label="Consumer">
          <Consumer access={a} teams={teams.data} />
        </Fact>
        <Fact label={activatedAt && !a.info.startDate ? "Active since" : "Start"}>
          <AccessStart access={a} activatedAt={activatedAt} />
        </Fact>
        <Fact label="End">
          <When value={a.info.endDate} empty="open-ended" />
        </Fact>
        <Fact label="Canceled">{canceled && <When value={canceledAt(a)} />}</Fact>
      </Facts>
      <AccessPolicies id={a.id!} version={access.data} />
      <AccessPrivileges id={a.id} version={access.data} />
      <UsagePanel of="access" id={a.id!} />
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
                    <Badge tone={EVENT_TONES[kind.replace(/ .*/, "")] ?? "neutral"}>{kind}</Badge>
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
          <Facts look="compact">
            <Fact label="Status">
              <Badge>{p.status}</Badge>
            </Fact>
            <Fact label="Platform">{p.platform}</Fact>
            <Fact label="Executor">{p.executor}</Fact>
            <Fact label="Reference">{p.reference && <code>{p.reference}</code>}</Fact>
            {p.diagnostics !== undefined && <ProvisioningDiagnostics diagnostics={p.diagnostics} />}
            <Fact label="Updated">
              <When value={p.updatedAt as string | undefined} />
            </Fact>
          </Facts>
        ) : (
          <Empty>No connector has reported provisioning for this access yet.</Empty>
        )}
      </section>
      <Confirm
        open={withdrawing}
        title="Withdraw access request"
        confirmLabel="Withdraw request"
        danger
        onClose={() => setWithdrawing(false)}
        onConfirm={async () => {
          await call("DELETE", `/api/access/${enc(a.id)}`);
          navigate("/access", { force: true });
        }}
      >
        <p>Withdraw “{a.info.purpose}”? The request is deleted; the providing team no longer sees it.</p>
      </Confirm>
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
