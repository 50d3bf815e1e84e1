import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, get, pagePath, withQuery, type Access, type PageKind, type CloudEvent, type DataContract, type DataProduct, type Team } from "../api.js";
import { contractSummary, productSummary } from "../documents.js";
import { usePrincipalNames } from "../names.js";
import { Badge, ErrorBox, Loading, PageHeader, When } from "../ui.js";
import { EVENT_TONES } from "../components/event-tones.js";

/** The newest events (of one resource, with `subject`), oldest first. */
export function readRecent(limit: number, subject?: string): Promise<CloudEvent[]> {
  return get<CloudEvent[]>(withQuery("/api/events/recent", { limit: String(limit), subject }));
}

/** Everything after `after`, in pages of 1000, oldest first. */
export async function readFeed(after: string): Promise<CloudEvent[]> {
  const all: CloudEvent[] = [];
  let last = after;
  for (;;) {
    const batch = await get<CloudEvent[]>(withQuery("/api/events", { lastEventId: last, longPolling: "false" }));
    all.push(...batch);
    if (batch.length < 1000) return all;
    last = batch[batch.length - 1].id;
  }
}

/** The page of each kind of event's subject; output port events name their data product. */
const PAGE_OF: Record<string, PageKind> = {
  Team: "teams",
  DataProduct: "dataproducts",
  OutputPort: "dataproducts",
  DataContract: "datacontracts",
  Access: "access",
  Asset: "assets",
  SourceSystem: "sourcesystems",
  Definition: "definitions",
  Tag: "tags",
  TestResults: "test-results",
};

const KIND = new RegExp(`^(${Object.keys(PAGE_OF).join("|")})(.+)Event$`);

/** `com.service.events.AccessApprovedEvent` → { resource: "Access", action: "Approved" } */
export function describe(event: CloudEvent): { resource: string; action: string; href?: string } {
  const kind = event.type.split(".").pop() ?? event.type;
  const m = KIND.exec(kind);
  if (!m) return { resource: "", action: kind };
  const [, resource, rawAction] = m;
  const action = rawAction.replace(/([a-z])([A-Z])/g, "$1 $2");
  const href = pagePath(PAGE_OF[resource], event.subject);
  return { resource: resource.replace(/([a-z])([A-Z])/g, "$1 $2"), action, href: rawAction === "Deleted" ? undefined : href };
}

/** Readable names for event subjects (titles, purposes), looked up from the catalog. */
async function loadNames(): Promise<Map<string, string>> {
  const [teams, products, contracts, accesses] = await Promise.all([
    get<Team[]>("/api/teams"),
    get<DataProduct[]>("/api/dataproducts"),
    get<DataContract[]>("/api/datacontracts"),
    get<Access[]>("/api/access"),
  ]);
  const names = new Map<string, string>();
  for (const t of teams) names.set(`Team:${t.id}`, t.name);
  for (const p of products) {
    names.set(`Data Product:${p.id}`, productSummary(p).title);
    names.set(`Output Port:${p.id}`, productSummary(p).title);
  }
  for (const c of contracts) names.set(`Data Contract:${c.id}`, contractSummary(c).title);
  for (const a of accesses) names.set(`Access:${a.id}`, a.info.purpose);
  return names;
}

const POLL_MS = 3000;
const KEEP = 200;

export function ActivityPage() {
  const nameOf = usePrincipalNames();
  const [events, setEvents] = useState<CloudEvent[] | null>(null);
  const [error, setError] = useState<unknown>();
  const [filter, setFilter] = useState("");
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const last = useRef<string | undefined>(undefined);
  const [names, setNames] = useState<Map<string, string>>(new Map());

  useEffect(() => {
    let live = true;
    let timer: number | undefined;
    const poll = async () => {
      try {
        // Start from the newest events, then follow the feed from there.
        const batch = last.current === undefined ? await readRecent(KEEP) : await readFeed(last.current);
        if (!live) return;
        if (batch.length > 0) {
          const initial = last.current === undefined;
          last.current = batch[batch.length - 1].id;
          loadNames().then((n) => live && setNames(n), () => undefined);
          setEvents((prev) => [...batch.reverse(), ...(prev ?? [])].slice(0, KEEP));
          if (!initial) setFresh(new Set(batch.map((e) => e.id)));
        } else setEvents((prev) => prev ?? []);
        setError(undefined);
      } catch (err) {
        if (live) setError(err);
        if (err instanceof ApiError && err.status === 400) last.current = undefined;
      }
      if (live) timer = window.setTimeout(poll, POLL_MS);
    };
    poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);

  const shown = (events ?? []).filter((e) => !filter || describe(e).resource === filter);
  return (
    <>
      <PageHeader title="Activity">
        <p class="lead">
          The organization's latest changes, newest first.{" "}
          <span class="live" role="status">
            <span class="dot" aria-hidden="true" /> Live: checks for new events every {POLL_MS / 1000} seconds
          </span>
        </p>
      </PageHeader>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="kind">Show</label>
          <select id="kind" value={filter} onChange={(e) => setFilter(e.currentTarget.value)}>
            <option value="">Everything</option>
            {["Access", "Data Product", "Output Port", "Data Contract", "Team"].map((r) => (
              <option key={r} value={r}>
                {r} events
              </option>
            ))}
          </select>
        </div>
      </form>
      <ErrorBox error={error} title="The feed could not be read" />
      {events === null ? (
        <Loading />
      ) : shown.length === 0 ? (
        <p class="empty">Nothing has happened yet.</p>
      ) : (
        <ol class="timeline" aria-label="Events, newest first" aria-live="polite" aria-relevant="additions">
          {shown.map((e) => {
            const d = describe(e);
            return (
              <li key={e.id} class={fresh.has(e.id) ? "fresh" : undefined} data-event-kind={e.type.split(".").pop()}>
                <When value={e.time} />
                <span class="what">
                  <span class="resource">{d.resource}</span> <Badge tone={EVENT_TONES[d.action] ?? "neutral"}>{d.action}</Badge>
                </span>
                <span class="subject">
                  {d.href ? <a href={d.href}>{names.get(`${d.resource}:${e.subject}`) ?? e.subject}</a> : <code>{e.subject}</code>}
                  {names.has(`${d.resource}:${e.subject}`) && <span class="sub id">{e.subject}</span>}
                  {e.data.outputPortId && <span class="muted"> · port {e.data.outputPortId}</span>}
                  {e.data.status && <span class="muted"> · {e.data.status}</span>}
                  <span class="actor">by {nameOf(e.principal, (e as { principalName?: string }).principalName)}</span>
                </span>
              </li>
            );
          })}
        </ol>
      )}
      {events !== null && events.length >= KEEP && <p class="hint">Showing the latest {KEEP} events. Consumers read the complete feed at /api/events.</p>}
    </>
  );
}
