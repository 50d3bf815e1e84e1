import type { Static } from "@sinclair/typebox";
import { useState } from "preact/hooks";
import { useAction } from "./use-action.js";
import { call, enc } from "../api.js";
import { Dialog, DialogFooter } from "../dialogs.js";
import { CopyButton, ErrorBox, Field } from "../ui.js";
import type { ChannelType, NotificationChannelInputSchema, NotificationChannelSchema } from "../../../src/modules/notification-channels/shapes.js";

export type Channel = Static<typeof NotificationChannelSchema>;
type ChannelInput = Static<typeof NotificationChannelInputSchema>;

/** The channel types in words (docs/notifications.md, "Channel types and formats"). */
export const CHANNEL_TYPE_LABELS: Record<ChannelType, string> = {
  slack: "Slack incoming webhook",
  teams: "Microsoft Teams incoming webhook",
  googlechat: "Google Chat incoming webhook",
  webhook: "Signed webhook (the CloudEvent)",
  email: "E-mail",
};

const ENDPOINT_HINTS: Record<Exclude<ChannelType, "email">, string> = {
  slack: "The incoming-webhook URL Slack gave you (https://hooks.slack.com/…).",
  teams: "The incoming-webhook URL of the Teams channel (a workflow's HTTP trigger).",
  googlechat: "The webhook URL of the Google Chat space.",
  webhook: "Your receiver. Each delivery is signed per Standard Webhooks with a secret shown once, after saving.",
};

/** Addresses typed one per line or separated by commas. */
const addressesOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((a) => a.trim())
    .filter((a) => a !== "");

/**
 * Adds or changes one of a team's notification channels in a dialog. A `webhook` channel's
 * signing secret is in the answer of the save that made it, and only there: this dialog shows
 * it then, once, and forgets it when it closes.
 */
export function ChannelForm(props: { teamId: string; channel?: Channel; open: boolean; onClose: () => void; onSaved: () => void }) {
  const editing = props.channel;
  const [id, setId] = useState(editing?.id ?? "");
  const [name, setName] = useState(editing?.name ?? "");
  const [type, setType] = useState<ChannelType>(editing?.type ?? "slack");
  const [endpoint, setEndpoint] = useState(editing?.endpoint ?? "");
  const [addresses, setAddresses] = useState((editing?.addresses ?? []).join("\n"));
  const [enabled, setEnabled] = useState(editing?.enabled ?? true);
  const { busy, error, submit } = useAction();
  // The secret lives only in this dialog's state: gone once it closes.
  const [secret, setSecret] = useState<string | null>(null);
  const close = () => {
    setSecret(null);
    props.onClose();
  };
  const save = async () => {
    const body: ChannelInput = { name: name.trim(), type, enabled, ...(type === "email" ? { addresses: addressesOf(addresses) } : { endpoint: endpoint.trim() }) };
    const saved = await call<Channel>("PUT", `/api/teams/${enc(props.teamId)}/notification-channels/${enc(id.trim())}`, body);
    props.onSaved();
    if (saved.secret) setSecret(saved.secret);
    else close();
  };
  return (
    <Dialog open={props.open} title={secret ? "Signing secret" : editing ? `Edit channel “${editing.name}”` : "New notification channel"} onClose={close}>
      {secret ? (
        <div class="dialog-body">
          <p class="alert warn" role="status">
            Copy the signing secret now: Steward shows it this once. Your receiver checks each delivery's <code>webhook-signature</code> with it.
          </p>
          <Field label="Signing secret" id="channel-secret">
            <div class="secret">
              <input id="channel-secret" class="code" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} data-testid="channel-secret" />
              <CopyButton text={secret} />
            </div>
          </Field>
          <footer class="dialog-footer">
            <button type="button" class="primary" onClick={close}>
              Done
            </button>
          </footer>
        </div>
      ) : (
        <form
          onSubmit={submit(async () => {
            await save();
          })}
        >
          <div class="dialog-body">
            <div class="row">
              <Field label="Id" id="channel-id" hint={editing ? undefined : "Letters, digits, dots, dashes; unique in the team."}>
                <input id="channel-id" required readOnly={!!editing} value={id} pattern="[A-Za-z0-9][A-Za-z0-9._\-]*" maxLength={100} onInput={(e) => setId(e.currentTarget.value)} />
              </Field>
              <Field label="Name" id="channel-name">
                <input id="channel-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
              </Field>
            </div>
            <Field label="Type" id="channel-type">
              <select id="channel-type" value={type} onChange={(e) => setType(e.currentTarget.value as ChannelType)}>
                {(Object.keys(CHANNEL_TYPE_LABELS) as ChannelType[]).map((t) => (
                  <option key={t} value={t}>
                    {CHANNEL_TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
            </Field>
            {type === "email" ? (
              <Field label="Addresses" id="channel-addresses" hint="One per line, at most 20. Sent through the operator's SMTP server.">
                <textarea id="channel-addresses" rows={3} required value={addresses} onInput={(e) => setAddresses(e.currentTarget.value)} />
              </Field>
            ) : (
              <Field label="Endpoint" id="channel-endpoint" hint={ENDPOINT_HINTS[type]}>
                <input id="channel-endpoint" type="url" required maxLength={2048} value={endpoint} onInput={(e) => setEndpoint(e.currentTarget.value)} />
              </Field>
            )}
            <label class="check">
              <input type="checkbox" checked={enabled} onChange={(e) => setEnabled((e.target as HTMLInputElement).checked)} /> Enabled
            </label>
            <ErrorBox error={error} labels={{ endpoint: "The endpoint", addresses: "The addresses", name: "The name", id: "The id" }} />
          </div>
          <DialogFooter submit={editing ? "Save channel" : "Add channel"} onCancel={close} busy={busy} />
        </form>
      )}
    </Dialog>
  );
}
