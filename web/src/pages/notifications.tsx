import type { Static } from "@sinclair/typebox";
import { useEffect, useState } from "preact/hooks";
import { call, get, withQuery } from "../api.js";
import type { NotificationSchema, NotificationSettingsSchema, UnreadCountSchema } from "../../../src/modules/notifications/shapes.js";
import { Empty, ErrorBox, Loading, PageHeader, useLoad, When } from "../ui.js";
import { KIND_LABELS } from "../components/notification-kinds.js";

type Notification = Static<typeof NotificationSchema>;
type Settings = Static<typeof NotificationSettingsSchema>;

/** Said on `window` whenever notifications were read here, so the header's count follows at once. */
const CHANGED = "steward:notifications-changed";
const POLL_MS = 15_000;


/** The header's link to the notifications, with the unread count; it asks again now and then. */
export function NotificationBell({ path }: { path: string }) {
  const [unread, setUnread] = useState<number | undefined>(undefined);
  useEffect(() => {
    let live = true;
    const load = () => get<Static<typeof UnreadCountSchema>>("/api/notifications/unread-count").then((r) => live && setUnread(r.unread), () => undefined);
    load();
    const timer = window.setInterval(load, POLL_MS);
    window.addEventListener(CHANGED, load);
    return () => {
      live = false;
      clearInterval(timer);
      window.removeEventListener(CHANGED, load);
    };
  }, [path]);
  const label = unread ? `Notifications, ${unread} unread` : "Notifications";
  return (
    <a class="bell" href="/notifications" aria-label={label} title={label} aria-current={path === "/notifications" ? "page" : undefined}>
      <span aria-hidden="true">🔔</span>
      {unread ? (
        <span class="bell-count" data-testid="unread-count" aria-hidden="true">
          {unread > 99 ? "99+" : unread}
        </span>
      ) : null}
    </a>
  );
}

/** The path of a link into this web app, so it opens here whatever APP_URL says. */
function localPath(link: string): string {
  try {
    const url = new URL(link);
    return url.pathname + url.search;
  } catch {
    return "/";
  }
}

export function NotificationsPage() {
  const [unreadOnly, setUnreadOnly] = useState(false);
  const list = useLoad(() => get<Notification[]>(withQuery("/api/notifications", { unread: unreadOnly ? "true" : undefined, limit: "200" })), [unreadOnly]);
  const [error, setError] = useState<unknown>();
  const markRead = async (ids?: string[]) => {
    try {
      await call("POST", "/api/notifications/read", ids ? { ids } : {});
      setError(undefined);
      list.reload();
      window.dispatchEvent(new Event(CHANGED));
    } catch (err) {
      setError(err);
    }
  };
  const unread = (list.data ?? []).filter((n) => !n.read).length;
  return (
    <>
      <PageHeader
        title="Notifications"
        actions={
          <button type="button" onClick={() => markRead()} disabled={unread === 0}>
            Mark all read
          </button>
        }
      >
        <p class="lead">What concerns your teams, newest first. Turn kinds off below.</p>
      </PageHeader>
      <label class="inline">
        <input type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly((e.target as HTMLInputElement).checked)} /> Unread only
      </label>
      {error !== undefined && <ErrorBox error={error} />}
      {list.error !== undefined && <ErrorBox error={list.error} />}
      {list.loading && list.data === undefined ? (
        <Loading what="Loading notifications" />
      ) : (list.data ?? []).length === 0 ? (
        <Empty>No notifications{unreadOnly ? " unread" : ""}.</Empty>
      ) : (
        <ul class="notifications" aria-label="Notifications">
          {(list.data ?? []).map((n) => (
            <li key={n.id} class={n.read ? "read" : "unread"} data-kind={n.kind}>
              <div>
                <a href={localPath(n.link)}>
                  <strong>{n.title}</strong>
                </a>
                {!n.read && <span class="badge warn">new</span>}
                <p>{n.text}</p>
                {n.comment && (
                  <p class="comment">
                    <em>Comment:</em> {n.comment}
                  </p>
                )}
                <p class="muted">
                  <When value={n.time} />
                </p>
              </div>
              {!n.read && (
                <button type="button" class="link" onClick={() => markRead([n.id])} aria-label={`Mark read: ${n.title}`}>
                  Mark read
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <NotificationSettingsForm />
    </>
  );
}

function NotificationSettingsForm() {
  const settings = useLoad(() => get<Settings>("/api/notifications/settings"), []);
  const [disabled, setDisabled] = useState<string[] | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (settings.data) setDisabled(settings.data.disabledKinds);
  }, [settings.data]);
  if (settings.error !== undefined) return <ErrorBox error={settings.error} />;
  if (!settings.data || disabled === undefined) return <Loading what="Loading settings" />;
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const answer = await call<Settings>("PUT", "/api/notifications/settings", { disabledKinds: disabled });
      setDisabled(answer.disabledKinds);
      setSaved(true);
      setError(undefined);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby="notification-settings">
      <h2 id="notification-settings">What to tell me</h2>
      <p class="muted">Kinds turned off reach you neither here nor by e-mail. Your teams' channels are not affected.</p>
      {(settings.data.kinds ?? []).map((kind) => (
        <label key={kind} class="inline">
          <input
            type="checkbox"
            name={kind}
            checked={!disabled.includes(kind)}
            onChange={(e) => {
              setSaved(false);
              const on = (e.target as HTMLInputElement).checked;
              setDisabled(on ? disabled.filter((k) => k !== kind) : [...disabled, kind]);
            }}
          />{" "}
          {KIND_LABELS[kind] ?? kind}
        </label>
      ))}
      {error !== undefined && <ErrorBox error={error} />}
      <p>
        <button type="submit">Save settings</button> {saved && <span role="status">Saved.</span>}
      </p>
    </form>
  );
}
