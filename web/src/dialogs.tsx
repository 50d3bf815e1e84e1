import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { call } from "./api.js";
import { navigate } from "./router.js";
import { ErrorBox } from "./ui.js";

/** A modal dialog on the native <dialog>: focus is trapped, Escape closes it. */
export function Dialog(props: { open: boolean; title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      class={props.wide ? "wide" : undefined}
      aria-labelledby="dialog-title"
      onClose={() => props.open && props.onClose()}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      {props.open && (
        <>
          <header class="dialog-header">
            <h2 id="dialog-title">{props.title}</h2>
            <button type="button" class="icon" aria-label="Close" onClick={props.onClose}>
              ×
            </button>
          </header>
          {props.children}
        </>
      )}
    </dialog>
  );
}

/** Asks before something that cannot be undone. */
export function Confirm(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  useEffect(() => setError(undefined), [props.open]);
  return (
    <Dialog open={props.open} title={props.title} onClose={props.onClose}>
      <form
        method="dialog"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            await props.onConfirm();
            props.onClose();
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <div class="dialog-body">
          {props.children}
          <ErrorBox error={error} />
        </div>
        <DialogFooter submit={props.confirmLabel} cancel="Keep it" onCancel={props.onClose} tone={props.danger ? "danger" : "primary"} busy={busy} />
      </form>
    </Dialog>
  );
}

/** The cancel and submit buttons at the foot of a form in a dialog. */
export function DialogFooter(props: { submit: string; onCancel: () => void; cancel?: string; tone?: "primary" | "danger"; busy?: boolean }) {
  return (
    <footer class="dialog-footer">
      <button type="button" onClick={props.onCancel}>
        {props.cancel ?? "Cancel"}
      </button>
      <button type="submit" class={props.tone ?? "primary"} disabled={props.busy}>
        {props.submit}
      </button>
    </footer>
  );
}

/** Deletes a catalog document after asking; when something still depends on it, says what (the server's 409). */
export function DeleteDialog(props: { open: boolean; onClose: () => void; path: string; name: string; noun: string; then: string; children?: ComponentChildren }) {
  return (
    <Confirm
      open={props.open}
      title={`Delete ${props.noun}`}
      confirmLabel={`Delete ${props.noun}`}
      danger
      onClose={props.onClose}
      onConfirm={async () => {
        await call("DELETE", props.path);
        navigate(props.then, { force: true });
      }}
    >
      <p>
        Delete <strong>{props.name}</strong>? This cannot be undone. {props.children}
      </p>
    </Confirm>
  );
}
