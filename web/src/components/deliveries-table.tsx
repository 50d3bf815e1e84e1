import type { Static } from "@sinclair/typebox";
import { useState } from "preact/hooks";
import { call, enc, get, withQuery } from "../api.js";
import { Badge, Empty, ErrorBox, Loading, Table, useLoad, When } from "../ui.js";
import type { DeliverySchema } from "../../../src/modules/notification-channels/shapes.js";
import { KIND_LABELS } from "./notification-kinds.js";

type Delivery = Static<typeof DeliverySchema>;

const STATUS_TONES: Record<Delivery["status"], string> = { pending: "warn", delivered: "ok", failed: "bad" };

/**
 * One channel's delivery log, newest first (docs/notifications.md, "Delivery log"): each
 * delivery's status, attempts, the receiver's last answer code and error, with a button that
 * queues it again, due now. Redelivering the newest is how a channel is tried out.
 */
export function DeliveriesTable(props: { teamId: string; channelId: string }) {
  const path = `/api/teams/${enc(props.teamId)}/notification-channels/${enc(props.channelId)}/deliveries`;
  const log = useLoad(() => get<Delivery[]>(withQuery(path, { limit: "50" })), [path]);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState("");
  const redeliver = async (d: Delivery) => {
    setError(undefined);
    setNotice("");
    try {
      await call("POST", `${path}/${enc(d.id)}/redeliver`);
      setNotice(`Queued again: ${KIND_LABELS[d.kind] ?? d.kind}.`);
      log.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="deliveries">
      <div class="toolbar">
        <button type="button" onClick={() => log.reload()}>
          Refresh log
        </button>
      </div>
      <ErrorBox error={log.error ?? error} title={log.error ? "The delivery log could not be read" : undefined} />
      {notice && (
        <p class="alert info" role="status">
          {notice}
        </p>
      )}
      {log.loading && !log.data ? (
        <Loading what="Loading the delivery log" />
      ) : log.data?.length === 0 ? (
        <Empty>Nothing delivered yet. Deliveries appear here when something the team hears of happens.</Empty>
      ) : (
        <Table caption={`Delivery log of ${props.channelId}`} columns={["Notification", "Status", "Attempts", "Answer", "Last error", "Queued", "Last attempt", ""]} busy={log.loading}>
          {log.data?.map((d) => (
            <tr key={d.id} data-delivery={d.id}>
              <td>
                {KIND_LABELS[d.kind] ?? d.kind}
                <div class="sub">
                  <code>{d.id}</code>
                </div>
              </td>
              <td>
                <Badge tone={STATUS_TONES[d.status]}>{d.status}</Badge>
                {d.status === "pending" && d.nextAttemptAt && (
                  <div class="sub">
                    next <When value={d.nextAttemptAt} />
                  </div>
                )}
              </td>
              <td class="num">{d.attempts}</td>
              <td class="num">{d.lastStatusCode ?? <span class="muted">—</span>}</td>
              <td>{d.lastError ?? <span class="muted">—</span>}</td>
              <td>
                <When value={d.createdAt} />
              </td>
              <td>
                <When value={d.lastAttemptAt} />
              </td>
              <td class="row-actions">
                <button type="button" onClick={() => redeliver(d)}>
                  Redeliver
                  <span class="visually-hidden"> {d.id}</span>
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </div>
  );
}
