import { useEffect, useState } from "preact/hooks";
import { call, useCsrfToken, type Session } from "../api.js";
import { navigate } from "../router.js";
import { ErrorBox, Field, Loading, useLoad } from "../ui.js";

function safeNext(): string {
  const next = new URLSearchParams(location.search).get("next");
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/dataproducts";
}

function AuthCard({ title, children }: { title: string; children: preact.ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Steward`;
  }, [title]);
  return (
    <main id="main" class="auth">
      <div class="auth-card">
        <p class="brand auth-brand">
          <img src="/favicon.svg" alt="" width="32" height="32" />
          <span>Steward</span>
        </p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

export function SignInPage({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <AuthCard title="Sign in">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            const session = await call<Session>("POST", "/auth/sign-in", { email, password });
            useCsrfToken(session.csrfToken);
            onSignedIn(session);
            navigate(safeNext(), { replace: true });
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <Field label="Email address" id="email">
          <input id="email" name="email" type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </Field>
        <Field label="Password" id="password">
          <input id="password" name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </Field>
        <ErrorBox error={error} title="You are not signed in" />
        <button type="submit" class="primary wide" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p class="hint">No account yet? An owner of your organization can add you under Settings → Members and send you a setup link.</p>
    </AuthCard>
  );
}

export function SetupPage({ token, onSignedIn }: { token: string; onSignedIn: (s: Session) => void }) {
  const link = useLoad(() => call<{ organizationName: string; email: string | null; role: string }>("GET", `/auth/setup?token=${encodeURIComponent(token)}`), [token]);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [error, setError] = useState<unknown>();
  if (link.loading) return <Loading />;
  if (link.error || !link.data) {
    return (
      <AuthCard title="Set up your account">
        <ErrorBox error={link.error} title="This link cannot be used" />
        <p>
          <a href="/sign-in">Go to sign-in</a>
        </p>
      </AuthCard>
    );
  }
  const { organizationName, email: fixedEmail, role } = link.data;
  return (
    <AuthCard title="Set up your account">
      <p>
        You are joining <strong>{organizationName}</strong> as {role === "owner" ? "an owner" : "a member"}. Choose your password; this link works once.
      </p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setError(undefined);
          if (password !== repeat) {
            setError(new Error("The two passwords differ."));
            return;
          }
          try {
            const session = await call<Session>("POST", "/auth/setup", { token, password, ...(fixedEmail ? {} : { email }) });
            useCsrfToken(session.csrfToken);
            onSignedIn(session);
            navigate("/dataproducts", { replace: true });
          } catch (err) {
            setError(err);
          }
        }}
      >
        {fixedEmail ? (
          <Field label="Email address" id="email">
            <input id="email" type="email" value={fixedEmail} readOnly autoComplete="username" />
          </Field>
        ) : (
          <Field label="Email address" id="email" hint="You will sign in with this address.">
            <input id="email" type="email" required autoComplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </Field>
        )}
        <Field label="New password" id="password" hint="At least 8 characters.">
          <input id="password" type="password" required minLength={8} autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </Field>
        <Field label="Repeat the password" id="repeat">
          <input id="repeat" type="password" required minLength={8} autoComplete="new-password" value={repeat} onInput={(e) => setRepeat(e.currentTarget.value)} />
        </Field>
        <ErrorBox error={error} title="The account is not set up yet" />
        <button type="submit" class="primary wide">
          Set password and sign in
        </button>
      </form>
    </AuthCard>
  );
}
