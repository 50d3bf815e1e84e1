import { useState } from "preact/hooks";
import { ApiError, enc, get, send, withQuery, type Access, type DataProduct, type Team } from "../api.js";
import { productSummary } from "../documents.js";
import { canActFor, useSession } from "../session.js";
import { Confirm, DeleteDialog } from "../dialogs.js";
import { Badge, Empty, ErrorBox, Field, Loading, PageHeader, useLoad, RowAction, Table } from "../ui.js";
import { TeamChannels } from "../components/team-channels.js";
import { AccessTable } from "../components/access-parts.js";
import { Fact, Facts, IdFact } from "../components/facts.js";
import { EditAndDelete, ListTable, NewButton } from "../components/list-parts.js";
import { NameCell } from "../components/catalog-parts.js";
import { SuggestingInput } from "../components/suggesting-input.js";
import { DocumentEditor, type FormProps, type Resource } from "../components/document-editor.js";

export function TeamList() {
  const { session } = useSession();
  const teams = useLoad(() => get<Team[]>("/api/teams"), []);
  return (
    <>
      <PageHeader
        title="Teams"
        actions={
          session.scope === "organization" && <NewButton href="/teams/new">New team</NewButton>
        }
      >
        <p class="lead">Teams own data products and contracts. A member listed in a team acts for it in Steward.</p>
      </PageHeader>
      <ListTable
        list={teams}
        empty="No teams yet."
        columns={["Team", "Type", "Members", "You"]}
        row={(t) => (
          <tr key={t.id}>
            <NameCell kind="teams" id={t.id} name={t.name} description={t.description} />
            <td>{t.type ?? <span class="muted">—</span>}</td>
            <td class="num">{t.members?.length ?? 0}</td>
            <td>{session.teamIds.includes(t.id) ? <Badge tone="ok">member</Badge> : <span class="muted">—</span>}</td>
          </tr>
        )}
      />
    </>
  );
}

const TEAM: Resource = { plural: "teams", noun: "team", listTitle: "Teams" };

function TeamForm({ doc, onChange, errors }: FormProps) {
  const set = (k: string) => (e: { currentTarget: { value: string } }) => onChange({ ...doc, [k]: e.currentTarget.value });
  return (
    <>
      <div class="row">
        <Field label="Name" id="team-name" error={errors.name}>
          <input id="team-name" required value={String(doc.name ?? "")} onInput={set("name")} aria-invalid={!!errors.name || undefined} />
        </Field>
        <Field label="Type" id="team-type" hint="For example Team, Group or Department." error={errors.type}>
          <SuggestingInput id="team-type" list="team-types" value={String(doc.type ?? "")} onValue={(type) => onChange({ ...doc, type })} suggestions={["Team", "Group", "Department"]} />
        </Field>
      </div>
      <Field label="Description" id="team-description" error={errors.description}>
        <textarea id="team-description" rows={3} value={String(doc.description ?? "")} onInput={set("description")} />
      </Field>
      <p class="hint">Members are listed on the team's page, or in the YAML view under members.</p>
    </>
  );
}

export function TeamEditor({ id }: { id?: string }) {
  return (
    <DocumentEditor
      resource={TEAM}
      id={id}
      template={() => ({ name: "", type: "Team", description: "" })}
      ownerOf={(doc) => String(doc.id ?? id)}
      titleOf={(doc) => String(doc.name ?? id)}
      form={() => TeamForm}
      labels={{ name: "The name", type: "The type", description: "The description" }}
      intro="Teams own data products and data contracts; the people listed as members act for them."
    />
  );
}

export function TeamPage({ id }: { id: string }) {
  const { session } = useSession();
  const team = useLoad(() => send<Team>("GET", `/api/teams/${enc(id)}`), [id]);
  const products = useLoad(() => get<DataProduct[]>(withQuery("/api/dataproducts", { teamId: id })), [id]);
  // What the team consumes, itself or through its data products (the server filters: no first page filtered here).
  const consumed = useLoad(() => get<Access[]>(withQuery("/api/access", { consumerTeamId: id })), [id]);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState("member");
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState("");
  const [removing, setRemoving] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  if (team.loading && !team.data) return <Loading />;
  if (!team.data) return <ErrorBox error={team.error} />;
  const t = team.data.data;
  const members = t.members ?? [];
  const editable = canActFor(session, t.id);
  const saveMembers = async (next: Team["members"]) => {
    try {
      await send("PUT", `/api/teams/${enc(t.id)}`, { ...t, members: next }, { ifMatch: team.data?.etag });
    } catch (err) {
      if (err instanceof ApiError && err.status === 412) {
        team.reload();
        throw new ApiError(412, "Someone changed this team while you were on the page. The page now shows their version; try again.", [], "Changed by someone else");
      }
      throw err;
    }
    team.reload();
  };
  return (
    <>
      <PageHeader
        title={t.name}
        kicker={<a href="/teams">Teams</a>}
        actions={
          editable && <EditAndDelete editHref={`/teams/${enc(t.id)}/edit`} onDelete={() => setDeleting(true)} />
        }
      >
        {t.description && <p class="lead">{t.description}</p>}
      </PageHeader>
      <Facts>
        <IdFact id={t.id} />
        <Fact label="Type">{t.type ?? "—"}</Fact>
      </Facts>
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
                {editable && <RowAction label="Remove" name={m.emailAddress} onClick={() => setRemoving(m.emailAddress)} />}
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
              setNotice("");
              const address = email.trim();
              const already = members.find((m) => m.emailAddress.toLowerCase() === address.toLowerCase());
              if (already) {
                setError(new ApiError(0, `${already.emailAddress} is already a member of ${t.name}${already.role ? ` (${already.role})` : ""}. To change their role, remove them and add them again.`, [], "Already a member"));
                return;
              }
              try {
                await saveMembers([...members, { emailAddress: address, role }]);
                setEmail("");
                setNotice(`${address} is now a member of ${t.name}.`);
              } catch (err) {
                setError(err);
              }
            }}
          >
            <Field label="Add a member by email" id="member-email">
              <input id="member-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            </Field>
            <Field label="Role in the team" id="member-role">
              <SuggestingInput id="member-role" list="team-roles" value={role} onValue={setRole} suggestions={["member", "owner", "data steward"]} />
            </Field>
            <button type="submit" class="primary">
              Add member
            </button>
          </form>
        )}
        <ErrorBox error={error} labels={{ "members[0].emailAddress": "The email address" }} />
        {notice && (
          <p class="alert info" role="status">
            {notice}
          </p>
        )}
        <p class="hint">People listed here act for the team when they sign in as organization members. Organization roles are managed under Settings → Members.</p>
      </section>
      <section aria-labelledby="owned">
        <h2 id="owned">Data products</h2>
        {products.data?.length === 0 && <Empty>This team owns no data products.</Empty>}
        <ul class="plain-list">
          {products.data?.map((p) => {
            const s = productSummary(p);
            return (
              <li key={p.id}>
                <a href={`/dataproducts/${enc(p.id)}`}>{s.title}</a> {s.status && <Badge>{s.status}</Badge>}
              </li>
            );
          })}
        </ul>
      </section>
      <section aria-labelledby="consumed">
        <h2 id="consumed">Data it consumes</h2>
        <ErrorBox error={consumed.error} title="The accesses could not be read" />
        {consumed.data?.length === 0 && <Empty>This team consumes no data products through Steward.</Empty>}
        {!!consumed.data?.length && <AccessTable accesses={consumed.data} />}
      </section>
      {editable && <TeamChannels teamId={t.id} />}
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
      <DeleteDialog open={deleting} onClose={() => setDeleting(false)} path={`/api/teams/${enc(t.id)}`} name={t.name} noun="team" then="/teams">
        Its members stop acting for it and its notification channels are removed. A team that still owns data products or contracts, or takes part in an access, cannot be deleted.
      </DeleteDialog>
    </>
  );
}
