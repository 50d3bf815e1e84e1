import { useState } from "preact/hooks";
import { useAction } from "./use-action.js";
import { call, enc, type Access } from "../api.js";
import { Dialog, DialogFooter } from "../dialogs.js";
import { ErrorBox, Field } from "../ui.js";

export type Decision = "approve" | "reject" | "cancel";

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
  const { busy, error, setError, submit } = useAction();
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
          onSubmit={submit(async () => {
            const body: Record<string, string> = {};
            if (comment.trim()) body.comment = comment.trim();
            if (decision === "cancel" && endDate) body.endDate = endDate;
            const result = await call<Access>("POST", `/api/access/${enc(access.id)}/${decision}`, body);
            const state = result?.info?.active ? "It is active." : decision === "approve" && result?.info?.startDate ? "It becomes active on its start date." : "";
            onDone(`${d.done}: “${access.info.purpose}”. ${state}`.trim());
            close();
          })}
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

