import { useState } from "preact/hooks";
import { call, enc, get } from "../api.js";
import { Confirm } from "../dialogs.js";
import { Badge, Empty, ErrorBox, Loading, Table, useLoad } from "../ui.js";
import { ChannelForm, CHANNEL_TYPE_LABELS, type Channel } from "./channel-form.js";
import { DeliveriesTable } from "./deliveries-table.js";

/**
 * A team's notification channels on its page (docs/notifications.md): the list, adding, editing
 * and removing one, and each channel's delivery log. Only those who may manage the team's
 * channels see this section at all, because reading a channel needs the same right as changing
 * it (an incoming-webhook URL is itself a credential).
 */
export function TeamChannels({ teamId }: { teamId: string }) {
  const base = `/api/teams/${enc(teamId)}/notification-channels`;
  const channels = useLoad(() => get<Channel[]>(base), [base]);
  // `null`: a new channel; a channel: editing it; undefined: no dialog.
  const [editing, setEditing] = useState<Channel | null | undefined>(undefined);
  const [removing, setRemoving] = useState<Channel | null>(null);
  const [logOf, setLogOf] = useState<string | null>(null);
  return (
    <section aria-labelledby="channels">
      <h2 id="channels">Notification channels</h2>
      <p class="hint">Where the team hears of access requests, decisions, breaking changes and policy verdicts that concern it, beside its members' own notifications.</p>
      <ErrorBox error={channels.error} title="The channels could not be read" />
      {channels.loading && !channels.data ? (
        <Loading what="Loading the channels" />
      ) : channels.data?.length === 0 ? (
        <Empty>No channels yet.</Empty>
      ) : (
        <Table caption="Notification channels" columns={["Channel", "Type", "Sends to", "Status", ""]}>
          {channels.data?.map((c) => (
            <tr key={c.id}>
              <td>
                <strong>{c.name}</strong>
                <div class="sub">
                  <code>{c.id}</code>
                </div>
              </td>
              <td>{CHANNEL_TYPE_LABELS[c.type]}</td>
              <td class="wrap">{c.type === "email" ? (c.addresses ?? []).join(", ") : <code>{c.endpoint}</code>}</td>
              <td>{c.enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="neutral">disabled</Badge>}</td>
              <td class="row-actions">
                <button type="button" aria-expanded={logOf === c.id} onClick={() => setLogOf(logOf === c.id ? null : c.id)}>
                  Delivery log<span class="visually-hidden"> of {c.name}</span>
                </button>{" "}
                <button type="button" onClick={() => setEditing(c)}>
                  Edit<span class="visually-hidden"> {c.name}</span>
                </button>{" "}
                <button type="button" class="danger-link" onClick={() => setRemoving(c)}>
                  Remove<span class="visually-hidden"> {c.name}</span>
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <p>
        <button type="button" onClick={() => setEditing(null)}>
          Add channel
        </button>
      </p>
      {logOf && channels.data?.some((c) => c.id === logOf) && (
        <section aria-labelledby="delivery-log">
          <h3 id="delivery-log">Delivery log: {channels.data.find((c) => c.id === logOf)?.name}</h3>
          <DeliveriesTable teamId={teamId} channelId={logOf} />
        </section>
      )}
      {editing !== undefined && (
        <ChannelForm key={editing?.id ?? "new"} teamId={teamId} channel={editing ?? undefined} open onClose={() => setEditing(undefined)} onSaved={() => channels.reload()} />
      )}
      <Confirm
        open={removing !== null}
        title="Remove notification channel"
        confirmLabel="Remove channel"
        danger
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await call("DELETE", `${base}/${enc(removing!.id)}`);
          if (logOf === removing!.id) setLogOf(null);
          channels.reload();
        }}
      >
        <p>
          Remove <strong>{removing?.name}</strong>? Nothing more is sent to it, and its delivery log goes with it.
        </p>
      </Confirm>
    </section>
  );
}
