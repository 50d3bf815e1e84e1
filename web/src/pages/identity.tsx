import type { Static } from "@sinclair/typebox";
import { useState } from "preact/hooks";
import type { SignInSettingsSchema } from "../../../src/identity/shapes.js";
import type { GroupMapping } from "../../../src/identity/mapping.js";
import type { TeamRolesSettings } from "../../../src/identity/team-roles.js";
import { call } from "../api.js";
import { useSession } from "../session.js";
import { ErrorBox, Loading, PageHeader, useLoad } from "../ui.js";
import { OwnersOnly, SettingsNav } from "../components/settings.js";

type SignInSettings = Static<typeof SignInSettingsSchema>;

/** A JSON document edited as text, saved with PUT; errors of the server shown beside it. */
function JsonSetting<T>({ id, label, path, hint }: { id: string; label: string; path: string; hint: string }) {
  const loaded = useLoad(() => call<T>("GET", path), [path]);
  const [text, setText] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  if (loaded.loading && !loaded.data) return <Loading />;
  const value = text ?? JSON.stringify(loaded.data, null, 2);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setError(undefined);
        setSaved(false);
        try {
          const answer = await call<T>("PUT", path, JSON.parse(value));
          setText(JSON.stringify(answer, null, 2));
          setSaved(true);
        } catch (err) {
          setError(err instanceof SyntaxError ? new Error(`Not valid JSON: ${err.message}`) : err);
        }
      }}
    >
      <label for={id}>{label}</label>
      <p class="hint">{hint}</p>
      <textarea id={id} rows={10} spellcheck={false} value={value} onInput={(e) => setText(e.currentTarget.value)} />
      <ErrorBox error={error} />
      {saved && <p role="status">Saved.</p>}
      <button type="submit" class="primary">
        Save {label.toLowerCase()}
      </button>
    </form>
  );
}

/** `/settings/identity`: single sign-on, the group mapping, SCIM and team roles of the organization. */
export function IdentityPage() {
  const { session } = useSession();
  const owner = session.scope === "organization";
  const signIn = useLoad(() => (owner ? call<SignInSettings>("GET", "/api/settings/sign-in") : Promise.resolve(undefined)), [owner]);
  const [error, setError] = useState<unknown>();
  const setPasswords = async (on: boolean) => {
    setError(undefined);
    try {
      await call("PUT", "/api/settings/sign-in", { passwordSignIn: on });
      signIn.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <SettingsNav current="identity" />
      <PageHeader title="Sign-in and provisioning">
        <p class="lead">How people of this organization sign in, which provider groups make them owners or team members, and what their team roles allow.</p>
      </PageHeader>
      {!owner ? (
        <OwnersOnly />
      ) : (
        <>
          <section aria-labelledby="sign-in-heading">
            <h2 id="sign-in-heading">Sign-in</h2>
            {signIn.data && (
              <>
                <p>
                  Single sign-on: {signIn.data.ssoConfigured ? `configured; ${signIn.data.ownersSignedInWithSso} owner(s) signed in with it` : "not configured on this server (OIDC_ISSUER)"}.
                  Password sign-in is <strong>{signIn.data.passwordSignIn ? "on" : "off"}</strong>.
                </p>
                <button type="button" onClick={() => setPasswords(!signIn.data!.passwordSignIn)}>
                  {signIn.data.passwordSignIn ? "Turn password sign-in off" : "Turn password sign-in on"}
                </button>
              </>
            )}
            <ErrorBox error={error} />
          </section>
          <section aria-labelledby="scim-heading">
            <h2 id="scim-heading">SCIM provisioning</h2>
            <p>
              Give your identity provider the base URL <code>{`${location.origin}/api/scim/v2`}</code> and an organization API key (create one under{" "}
              <a href="/settings/api-keys">API keys</a>; it is shown once) as its bearer token.
            </p>
          </section>
          <section aria-labelledby="mapping-heading">
            <h2 id="mapping-heading">Group mapping</h2>
            <JsonSetting<GroupMapping>
              id="group-mapping"
              label="Group mapping"
              path="/api/settings/scim-mapping"
              hint='Entries of scimGroupMappings: {"scimGroup": "admins", "type": "organizationOwner"} or {"scimGroup": "data", "type": "teamMemberRole", "teamId": "data", "teamMemberRole": "member"}.'
            />
          </section>
          <section aria-labelledby="roles-heading">
            <h2 id="roles-heading">Team roles</h2>
            <JsonSetting<TeamRolesSettings>
              id="team-roles"
              label="Team roles"
              path="/api/settings/team-roles"
              hint='{"mode": "default"}, or {"mode": "custom-team-roles", "team-roles": [{"name": "Approver", "permissions": ["ACCESS_APPROVE"]}]}.'
            />
          </section>
        </>
      )}
    </>
  );
}
