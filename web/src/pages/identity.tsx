import type { Static } from "@sinclair/typebox";
import { useState } from "preact/hooks";
import type { SignInSettingsSchema } from "../../../src/identity/shapes.js";
import type { TeamRolesSettings } from "../../../src/identity/team-roles.js";
import { call } from "../api.js";
import { useSession } from "../session.js";
import { ErrorBox, Loading, PageHeader, useLoad } from "../ui.js";
import { OwnersOnly, SettingsNav } from "../components/settings.js";
import { MappingForm } from "../components/mapping-form.js";
import { TeamRolesForm } from "../components/team-roles-form.js";

type SignInSettings = Static<typeof SignInSettingsSchema>;

/** `/settings/identity`: single sign-on, the group mapping, SCIM and team roles of the organization. */
export function IdentityPage() {
  const { session } = useSession();
  const owner = session.scope === "organization";
  const signIn = useLoad(() => (owner ? call<SignInSettings>("GET", "/api/settings/sign-in") : Promise.resolve(undefined)), [owner]);
  const teamRoles = useLoad(() => (owner ? call<TeamRolesSettings>("GET", "/api/settings/team-roles") : Promise.resolve(undefined)), [owner]);
  // The roles the mapping offers follow the team roles as last saved on this page.
  const [savedRoles, setSavedRoles] = useState<TeamRolesSettings>();
  const roles = savedRoles ?? teamRoles.data;
  const roleNames = roles?.mode === "custom-team-roles" ? (roles["team-roles"] ?? []).map((r) => r.name) : ["owner", "member"];
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
            {roles || teamRoles.error ? <MappingForm roleNames={roleNames} /> : <Loading />}
          </section>
          <section aria-labelledby="roles-heading">
            <h2 id="roles-heading">Team roles</h2>
            {teamRoles.error ? <ErrorBox error={teamRoles.error} /> : roles ? <TeamRolesForm initial={roles} onSaved={setSavedRoles} /> : <Loading />}
          </section>
        </>
      )}
    </>
  );
}
