import { useState } from "preact/hooks";
import { call, enc, get, withQuery, type DataProduct, type Team } from "../api.js";
import { navigate } from "../router.js";
import { canActFor, useSession } from "../session.js";
import { Badge, Confirm, Dialog, Empty, ErrorBox, Field, Loading, PageHeader, useLoad, DialogFooter, RowAction, Table } from "../ui.js";

export function TeamList() {
  const { session } = useSession();
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Teams"
        actions={
          session.scope === "organization" && (
            <button type="button" class="primary" onClick={() => setCreating(true)}>
              New team
            </button>
          )
        }
      >
        <p class="lead">Teams own data products and contracts. A member listed in a team acts for it in Steward.</p>
      </PageHeader>
      <ErrorBox error={teams.error} />
      {teams.loading ? (
        <Loading />
      ) : teams.data?.length === 0 ? (
        <Empty>No teams yet.</Empty>
      ) : (
        <Table columns={["Team", "Type", "Members", "You"]}>
          {teams.data?.map((t) => (
            <tr key={t.id}>
              <td>
                <a class="strong" href={`/teams/${enc(t.id)}`}>
                  {t.name}
                </a>
                <div class="sub">
                  <code>{t.id}</code>
                  {t.description && <span> · {t.description}</span>}
                </div>
              </td>
              <td>{t.type ?? <span class="muted">—</span>}</td>
              <td class="num">{t.members?.length ?? 0}</td>
              <td>{session.teamIds.includes(t.id) ? <Badge tone="ok">member</Badge> : <span class="muted">—</span>}</td>
            </tr>
          ))}
        </Table>
      )}
      <NewTeamDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}

function NewTeamDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [id, setId] = useState("");
  const [name, setName] = useState("");
  const [error, setError] = useState<unknown>();
  return (
    <Dialog open={open} title="New team" onClose={onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await call("PUT", `/api/teams/${enc(id.trim())}`, { name: name.trim(), type: "Team" });
            onClose();
            navigate(`/teams/${enc(id.trim())}`);
          } catch (err) {
            setError(err);
          }
        }}
      >
        <div class="dialog-body">
          <Field label="Name" id="team-name">
            <input id="team-name" required value={name} onInput={(e) => {
              const v = e.currentTarget.value;
              if (id === slug(name)) setId(slug(v));
              setName(v);
            }} />
          </Field>
          <Field label="Id" id="team-id" hint="Used in the API and in ownership; cannot change later.">
            <input id="team-id" required pattern="[^/]+" value={id} onInput={(e) => setId(e.currentTarget.value)} />
          </Field>
          <ErrorBox error={error} title="The team was not created" />
        </div>
        <DialogFooter submit="Create team" onCancel={onClose} />
      </form>
    </Dialog>
  );
}

const slug = (s: string) => s.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");

export function TeamPage({ id }: { id: string }) {
  const { session } = useSession();
  const team = useLoad(() => get<Team>(`/api/teams/${enc(id)}`), [id]);
  const products = useLoad(() => get<DataProduct[]>(withQuery("/api/dataproducts", { teamId: id })), [id]);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("member");
  const [error, setError] = useState<unknown>();
  const [removing, setRemoving] = useState<string | null>(null);
  if (team.loading) return <Loading />;
  if (!team.data) return <ErrorBox error={team.error} />;
  const t = team.data;
  const members = t.members ?? [];
  const editable = canActFor(session, t.id);
  const saveMembers = async (next: Team["members"]) => {
    const { id: _id, ...rest } = t;
    await call("PUT", `/api/teams/${enc(t.id)}`, { ...rest, members: next });
    team.reload();
  };
  return (
    <>
      <PageHeader title={t.name} kicker={<a href="/teams">Teams</a>}>
        {t.description && <p class="lead">{t.description}</p>}
      </PageHeader>
      <section aria-labelledby="members">
        <h2 id="members">Members</h2>
        {members.length === 0 ? (
          <Empty>No members listed.</Empty>
        ) : (
          <Table columns={["Email", "Role in the team", editable && ""]}>
            {members.map((m) => (
              <tr key={m.emailAddress}>
                <td>{m.emailAddress}</td>
                <td>{m.role ?? <span class="muted">—</span>}</td>
                {editable && (
                  <RowAction label="Remove" name={m.emailAddress} onClick={() => setRemoving(m.emailAddress)} />
                )}
              </tr>
            ))}
          </Table>
        )}
        {editable && (
          <form
            class="inline-form"
            onSubmit={async (e) => {
              e.preventDefault();
              setError(undefined);
              try {
                await saveMembers([...members.filter((m) => m.emailAddress.toLowerCase() !== email.trim().toLowerCase()), { emailAddress: email.trim(), role }]);
                setEmail("");
              } catch (err) {
                setError(err);
              }
            }}
          >
            <Field label="Add a member by email" id="member-email">
              <input id="member-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            </Field>
            <Field label="Role in the team" id="member-role">
              <input id="member-role" value={role} onInput={(e) => setRole(e.currentTarget.value)} list="team-roles" />
              <datalist id="team-roles">
                <option value="member" />
                <option value="owner" />
                <option value="data steward" />
              </datalist>
            </Field>
            <button type="submit" class="primary">
              Add member
            </button>
          </form>
        )}
        <ErrorBox error={error} />
        <p class="hint">People listed here act for the team when they sign in as organization members. Organization roles are managed under Settings → Members.</p>
      </section>
      <section aria-labelledby="owned">
        <h2 id="owned">Data products</h2>
        {products.data?.length === 0 && <Empty>This team owns no data products.</Empty>}
        <ul class="plain-list">
          {products.data?.map((p) => (
            <li key={p.id}>
              <a href={`/dataproducts/${enc(p.id)}`}>{p.info.title}</a> {p.info.status && <Badge>{p.info.status}</Badge>}
            </li>
          ))}
        </ul>
      </section>
      <Confirm
        open={removing !== null}
        title="Remove team member"
        confirmLabel="Remove"
        danger
        onClose={() => setRemoving(null)}
        onConfirm={() => saveMembers(members.filter((m) => m.emailAddress !== removing))}
      >
        <p>
          Remove <strong>{removing}</strong> from {t.name}? They will no longer act for this team.
        </p>
      </Confirm>
    </>
  );
}
