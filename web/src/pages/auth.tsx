import type { Static } from "@sinclair/typebox";
import { useEffect, useState } from "preact/hooks";
import { useAction } from "../components/use-action.js";
import type { SignInOptionsSchema } from "../../../src/identity/shapes.js";
import { call, useCsrfToken, type Invitation, type Session } from "../api.js";
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
  const { busy, error, submit } = useAction();
  const options = useLoad(() => call<Static<typeof SignInOptionsSchema>>("GET", "/auth/sign-in-options"), []);
  const ssoError = new URLSearchParams(location.search).get("ssoError");
  const sso = options.data?.sso;
  return (
    <AuthCard title="Sign in">
      {ssoError && (
        <div class="alert error" role="alert" id="sso-error">
          <strong>Single sign-on did not work</strong>
          <p>{ssoError}</p>
        </div>
      )}
      {sso && (
        <p>
          <a class="button primary wide" href={sso.url} id="sso-sign-in" target="_self">
            Sign in with {sso.name}
          </a>
        </p>
      )}
      <form
        onSubmit={submit(async () => {
          const session = await call<Session>("POST", "/auth/sign-in", { email, password });
          useCsrfToken(session.csrfToken);
          onSignedIn(session);
          navigate(safeNext(), { replace: true });
        })}
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
      <p class="hint">No account yet? An owner of your organization can invite you under Settings → Members and send you the invitation link.</p>
    </AuthCard>
  );
}

/** Changes made with the session need its CSRF token; a public page may not have loaded it yet. */
async function withSessionToken(): Promise<void> {
  const session = await call<Session>("GET", "/auth/session");
  useCsrfToken(session.csrfToken);
}

/**
 * `/invitation?token=…` and the first-start `/setup?token=…`: join an organization. A new
 * address chooses its password here; an existing account accepts signed in as itself.
 */
export function InvitationPage({ token, onSignedIn }: { token: string; onSignedIn: (s: Session) => void }) {
  const link = useLoad(() => call<Invitation>("GET", `/auth/invitation?token=${encodeURIComponent(token)}`), [token]);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const { busy, error, setError, run: act } = useAction();
  if (link.loading) return <Loading />;
  if (link.error || !link.data) {
    return (
      <AuthCard title="Join an organization">
        <ErrorBox error={link.error} title="This link cannot be used" />
        <p>
          <a href="/sign-in">Go to sign-in</a>
        </p>
      </AuthCard>
    );
  }
  const invitation = link.data;
  const setup = invitation.email === null;
  const here = `${location.pathname}${location.search}`;
  const joined = (session: Session) => {
    useCsrfToken(session.csrfToken);
    onSignedIn(session);
    navigate("/dataproducts", { replace: true });
  };
  const intro = (
    <p>
      {setup ? "Set up Steward: you become the first owner of " : "You are invited to join "}
      <strong>{invitation.organizationName}</strong>
      {setup ? "." : ` as ${invitation.role === "owner" ? "an owner" : "a member"}.`} This link works once.
    </p>
  );

  if (invitation.accountExists) {
    const signedInAsInvited = invitation.signedInAs === invitation.email;
    return (
      <AuthCard title="Join an organization">
        {intro}
        {signedInAsInvited ? (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void act(async () => {
                await withSessionToken();
                joined(await call<Session>("POST", "/auth/invitation", { token }));
              });
            }}
          >
            <p>
              You are signed in as <strong>{invitation.email}</strong>.
            </p>
            <ErrorBox error={error} title="You have not joined yet" />
            <button type="submit" class="primary wide" disabled={busy}>
              Accept invitation
            </button>
          </form>
        ) : invitation.signedInAs ? (
          <>
            <p>
              This invitation is for <strong>{invitation.email}</strong>, but you are signed in as <strong>{invitation.signedInAs}</strong>. Sign out, then open the link
              again and sign in as {invitation.email}.
            </p>
            <ErrorBox error={error} title="You are still signed in" />
            <button
              type="button"
              class="primary wide"
              disabled={busy}
              onClick={() =>
                act(async () => {
                  await withSessionToken();
                  await call("POST", "/auth/sign-out");
                  navigate(`/sign-in?next=${encodeURIComponent(here)}`, { replace: true });
                })
              }
            >
              Sign out
            </button>
          </>
        ) : (
          <>
            <p>
              <strong>{invitation.email}</strong> has a Steward account already. Sign in with it to accept.
            </p>
            <a class="button primary" href={`/sign-in?next=${encodeURIComponent(here)}`}>
              Sign in to accept
            </a>
          </>
        )}
      </AuthCard>
    );
  }

  return (
    <AuthCard title={setup ? "Set up Steward" : "Join an organization"}>
      {intro}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (password !== repeat) {
            setError(new Error("The two passwords differ."));
            return;
          }
          void act(async () => joined(await call<Session>("POST", "/auth/invitation", { token, password, ...(setup ? { email } : {}) })));
        }}
      >
        {setup ? (
          <Field label="Email address" id="email" hint="You will sign in with this address.">
            <input id="email" type="email" required autoComplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </Field>
        ) : (
          <Field label="Email address" id="email">
            <input id="email" type="email" value={invitation.email!} readOnly autoComplete="username" />
          </Field>
        )}
        <Field label="New password" id="password" hint="At least 8 characters.">
          <input id="password" type="password" required minLength={8} autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </Field>
        <Field label="Repeat the password" id="repeat">
          <input id="repeat" type="password" required minLength={8} autoComplete="new-password" value={repeat} onInput={(e) => setRepeat(e.currentTarget.value)} />
        </Field>
        <ErrorBox error={error} title="The account is not set up yet" />
        <button type="submit" class="primary wide" disabled={busy}>
          Create account and join
        </button>
      </form>
    </AuthCard>
  );
}
