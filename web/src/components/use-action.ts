import { useState } from "preact/hooks";

/**
 * What a form's action needs around its work: `busy` while it runs (its button disabled), the
 * problem it ended in kept as `error` to show, cleared when it runs again. `submit` is the form's
 * onSubmit: the page stays, the work runs.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const submit = (work: () => Promise<unknown>) => (e: Event) => {
    e.preventDefault();
    void run(work);
  };
  return { busy, error, setError, run, submit };
}
