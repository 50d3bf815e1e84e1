import { useState } from "preact/hooks";
import { call, enc, get, getAll, type ApiKey, type Team } from "../api.js";
import { useSession } from "../session.js";
import { Confirm, Dialog, DialogFooter } from "../dialogs.js";
import { Badge, CopyButton, Empty, ErrorBox, Field, Loading, PageHeader, useLoad, When, RowAction, Table } from "../ui.js";
import { usePrincipalNames } from "../names.js";
import { teamName } from "../components/catalog-links.js";

/** Who revoked a key: a principal (`user:<id>`), or a bare user id. */
const principalOf = (by: unknown): string | undefined => (typeof by === "string" ? (by.includes(":") ? by : `user:${by}`) : undefined);
import { OwnersOnly, SettingsNav } from "../components/settings.js";

export function ApiKeysPage() {
  const { session } = useSession();
  const owner = session.scope === "organization";
  const keys = useLoad(() => (owner ? getAll<ApiKey>("/api/api-keys") : Promise.resolve([])), [owner]);
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const [adding, setAdding] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const nameOf = usePrincipalNames();
  const active = (keys.data ?? []).filter((k) => !k.revokedAt);
  const revoked = (keys.data ?? []).filter((k) => !!k.revokedAt);
  return (
    <>
      <SettingsNav current="api-keys" />
      <PageHeader
        title="API keys"
        actions={
          owner && (
            <button type="button" class="primary" onClick={() => setAdding(true)}>
              Add API key
            </button>
          )
        }
      >
        <p class="lead">Keys let scripts, pipelines and connectors use the Steward API. A team key can change only what its team owns.</p>
      </PageHeader>
      {!owner ? (
        <OwnersOnly />
      ) : (
        <>
          <ErrorBox error={keys.error} />
          {keys.loading && !keys.data ? (
            <Loading />
          ) : active.length === 0 ? (
            <Empty>No API keys in force. Add one to use the API.</Empty>
          ) : (
            <Table columns={["Name", "Scope", "Team", "Created", "Last used", "Expires", ""]} caption="API keys of the organization">
              {active.map((k) => {
                const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= Date.now();
                return (
                  <tr key={k.id}>
                    <td class="strong">{k.displayName}</td>
                    <td data-label="Scope">
                      <Badge>{k.scope}</Badge>
                    </td>
                    <td data-label="Team">{k.teamId ? <a href={`/teams/${enc(k.teamId)}`}>{teamName(teams.data, k.teamId)}</a> : <span class="muted">all teams</span>}</td>
                    <td data-label="Created">
                      <When value={k.createdAt} />
                    </td>
                    <td data-label="Last used">
                      <When value={k.lastUsedAt} empty="never" />
                    </td>
                    <td data-label="Expires">
                      <When value={k.expiresAt} empty="never" /> {expired && <Badge tone="bad">expired</Badge>}
                    </td>
                    <RowAction label="Revoke" name={k.displayName} onClick={() => setRevoking(k)} />
                  </tr>
                );
              })}
            </Table>
          )}
        </>
      )}
      {revoked.length > 0 && (
        <section aria-labelledby="revoked-keys">
          <h2 id="revoked-keys">Revoked keys</h2>
          <p class="hint">A revoked key is refused on every request. It stays listed so that what it did can be traced.</p>
          <Table columns={["Name", "Scope", "Team", "Created", "Revoked", "Revoked by"]} caption="Revoked API keys" class="revoked">
            {revoked.map((k) => (
              <tr key={k.id}>
                <td class="strong">{k.displayName}</td>
                <td data-label="Scope">
                  <Badge>{k.scope}</Badge>
                </td>
                <td data-label="Team">{k.teamId ? teamName(teams.data, k.teamId) : <span class="muted">all teams</span>}</td>
                <td data-label="Created">
                  <When value={k.createdAt} />
                </td>
                <td data-label="Revoked">
                  <When value={k.revokedAt} />
                </td>
                <td data-label="Revoked by">{nameOf(principalOf(k.revokedBy))}</td>
              </tr>
            ))}
          </Table>
        </section>
      )}
      <AddKeyDialog
        open={adding}
        teams={teams.data ?? []}
        onClose={() => {
          setAdding(false);
          keys.reload();
        }}
      />
      <Confirm
        open={revoking !== null}
        title="Revoke API key"
        confirmLabel="Revoke key"
        danger
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          await call("DELETE", `/api/api-keys/${enc(revoking!.id)}`);
          keys.reload();
        }}
      >
        <p>
          Revoke <strong>{revoking?.displayName}</strong>? Every request made with it fails from now on. This cannot be undone.
        </p>
      </Confirm>
    </>
  );
}

/** What a new key of a scope without a team may do, said once it is created. */
const SCOPE_HINTS: Record<string, string> = {
  organization: "Scope: the whole organization.",
  organization_read: "Scope: read only, the whole organization.",
  connector: "Scope: connector — reads, reports provisioning, keeps connector state.",
  user: "Scope: acts as its person.",
  user_read: "Scope: reads as its person.",
};

function AddKeyDialog({ open, teams, onClose }: { open: boolean; teams: Team[]; onClose: () => void }) {
  const [name, setName] = useState("");
  const [scope, setScope] = useState<"organization" | "organization_read" | "team" | "team_read" | "user" | "user_read" | "connector">("team");
  const teamScoped = scope === "team" || scope === "team_read";
  // A person's key acts as that member of the organization (their account id or e-mail address).
  const personScoped = scope === "user" || scope === "user_read";
  const [person, setPerson] = useState("");
  const [teamId, setTeamId] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const team = teamId || teams[0]?.id || "";
  const close = () => {
    // The secret lives only in this dialog's state: gone once it closes.
    setCreated(null);
    setName("");
    setExpiresAt("");
    setError(undefined);
    onClose();
  };
  return (
    <Dialog open={open} title={created ? "Your new API key" : "Add API key"} onClose={close}>
      {created ? (
        <>
          <div class="dialog-body">
            <div class="alert warn" role="alert">
              <strong>Copy the key now — you will not see it again.</strong>
              <p>Steward stores only a hash of it. If you lose it, revoke it and add a new one.</p>
            </div>
            <Field label={`Secret of “${created.displayName}”`} id="secret" hint={SCOPE_HINTS[created.scope] ?? `Scope: ${created.scope === "team_read" ? "read only, " : ""}team ${teamName(teams, created.teamId)}.`}>
              <div class="secret">
                <input id="secret" class="code" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} data-testid="api-key-secret" />
                <CopyButton text={created.key} />
              </div>
            </Field>
            <p class="hint">
              Send it in the <code>x-api-key</code> header: <code>curl -H 'x-api-key: …' {location.origin}/api/dataproducts</code>
            </p>
          </div>
          <footer class="dialog-footer">
            <button type="button" class="primary" onClick={close}>
              I have stored the key
            </button>
          </footer>
        </>
      ) : (
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setError(undefined);
            try {
              setCreated(
                await call("POST", "/api/api-keys", {
                  displayName: name,
                  scope,
                  ...(teamScoped ? { teamId: team } : {}),
                  ...(personScoped ? { userId: person.trim() } : {}),
                  ...(expiresAt ? { expiresAt } : {}),
                }),
              );
            } catch (err) {
              setError(err);
            }
          }}
        >
          <div class="dialog-body">
            <Field label="Name" id="key-name" hint="What uses the key, e.g. “Airflow ingestion”.">
              <input id="key-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </Field>
            <fieldset class="choice">
              <legend>Scope</legend>
              <label>
                <input type="radio" name="scope" value="team" checked={scope === "team"} onChange={() => setScope("team")} /> One team — changes only what the team owns
              </label>
              <label>
                <input type="radio" name="scope" value="team_read" checked={scope === "team_read"} onChange={() => setScope("team_read")} /> Read only — reads everything, changes nothing
              </label>
              <label>
                <input type="radio" name="scope" value="organization" checked={scope === "organization"} onChange={() => setScope("organization")} /> Organization — everything, including keys
              </label>
              <label>
                <input type="radio" name="scope" value="organization_read" checked={scope === "organization_read"} onChange={() => setScope("organization_read")} /> Organization, read only — reads everything, members included; changes nothing
              </label>
              <label>
                <input type="radio" name="scope" value="user" checked={scope === "user"} onChange={() => setScope("user")} /> One person — acts as that member, with what they may do
              </label>
              <label>
                <input type="radio" name="scope" value="user_read" checked={scope === "user_read"} onChange={() => setScope("user_read")} /> One person, read only — reads what that member may read
              </label>
              <label>
                <input type="radio" name="scope" value="connector" checked={scope === "connector"} onChange={() => setScope("connector")} /> Connector — reads, reports provisioning, keeps connector state; nothing else
              </label>
            </fieldset>
            {teamScoped && (
              <Field label="Team" id="key-team">
                <select id="key-team" required value={team} onChange={(e) => setTeamId(e.currentTarget.value)}>
                  {teams.length === 0 && <option value="">Create a team first</option>}
                  {teams.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name}
                    </option>
                  ))}
                </select>
              </Field>
            )}
            {personScoped && (
              <Field label="Person" id="key-person" hint="The e-mail address of a member of this organization.">
                <input id="key-person" type="email" required maxLength={320} value={person} onInput={(e) => setPerson(e.currentTarget.value)} />
              </Field>
            )}
            <Field label="Expires on (optional)" id="key-expiry" hint="Empty: the key works until revoked.">
              <input id="key-expiry" type="date" value={expiresAt} min={new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)} onInput={(e) => setExpiresAt(e.currentTarget.value)} />
            </Field>
            <ErrorBox error={error} title="The key was not created" />
          </div>
          <DialogFooter submit="Create key" onCancel={close} />
        </form>
      )}
    </Dialog>
  );
}
