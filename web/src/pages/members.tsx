import { useState } from "preact/hooks";
import { call, enc, getAll, type Member } from "../api.js";
import { useSession } from "../session.js";
import { Badge, Confirm, CopyButton, Empty, ErrorBox, Field, Loading, PageHeader, useLoad, When, RowAction, Table } from "../ui.js";
import { OwnersOnly, SettingsNav } from "../components/settings.js";

export function MembersPage() {
  const { session } = useSession();
  const owner = session.scope === "organization";
  const members = useLoad(() => (owner ? getAll<Member>("/api/members") : Promise.resolve([])), [owner]);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"member" | "owner">("member");
  const [error, setError] = useState<unknown>();
  const [link, setLink] = useState<{ email: string; url: string } | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  // Adding never lowers an owner; the role menu changes a member on purpose (If-Match: *).
  const put = async (address: string, r: "member" | "owner", change = false) => {
    setError(undefined);
    try {
      const m = await call<Member>("PUT", `/api/members/${enc(address)}`, { role: r }, change ? { ifMatch: "*" } : {});
      if (m.invitationUrl) setLink({ email: m.email, url: m.invitationUrl });
      members.reload();
      return true;
    } catch (err) {
      setError(err);
      return false;
    }
  };
  return (
    <>
      <SettingsNav current="members" />
      <PageHeader title="Members">
        <p class="lead">
          People who sign in to this organization. Owners manage everything; members act for the teams that list them. New people join through a one-time
          invitation link and choose their own password.
        </p>
      </PageHeader>
      {!owner ? (
        <OwnersOnly />
      ) : (
        <>
          <form
            class="inline-form"
            onSubmit={async (e) => {
              e.preventDefault();
              if (await put(email.trim(), role)) setEmail("");
            }}
          >
            <Field label="Email address" id="new-member">
              <input id="new-member" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            </Field>
            <Field label="Role" id="new-role">
              <select id="new-role" value={role} onChange={(e) => setRole(e.currentTarget.value as "member" | "owner")}>
                <option value="member">Member</option>
                <option value="owner">Owner</option>
              </select>
            </Field>
            <button type="submit" class="primary">
              Invite
            </button>
          </form>
          {link && (
            <div class="alert info" role="status">
              <strong>Send this invitation link to {link.email}</strong>
              <p>Only {link.email} can use it, once, within 24 hours, to join this organization. It is not shown again.</p>
              <div class="secret">
                <input class="code" readOnly aria-label={`Invitation link for ${link.email}`} value={link.url} onFocus={(e) => e.currentTarget.select()} />
                <CopyButton text={link.url} />
              </div>
            </div>
          )}
          <ErrorBox error={members.error ?? error} />
          {members.loading && !members.data ? (
            <Loading />
          ) : members.data?.length === 0 ? (
            <Empty>No members.</Empty>
          ) : (
            <Table columns={["Email", "Role", "Status", "Added", ""]}>
              {members.data?.map((m) => (
                <tr key={m.email}>
                  <td class="strong">
                    {m.email} {m.userId === session.user.id && <span class="muted">(you)</span>}
                  </td>
                  <td>
                    <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => put(m.email, e.currentTarget.value as "member" | "owner", true)}>
                      <option value="member">Member</option>
                      <option value="owner">Owner</option>
                    </select>
                  </td>
                  <td>
                    {m.status === "active" ? (
                      <Badge tone="ok">active</Badge>
                    ) : (
                      <>
                        <Badge tone="warn">invited</Badge>{" "}
                        <button type="button" class="link" onClick={() => put(m.email, m.role)} aria-label={`Send a new link to ${m.email}`}>
                          New link
                        </button>
                      </>
                    )}
                  </td>
                  <td>
                    <When value={m.createdAt} />
                  </td>
                  <RowAction label="Remove" name={m.email} onClick={() => setRemoving(m)} />
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
      <Confirm
        open={removing !== null}
        title="Remove member"
        confirmLabel="Remove"
        danger
        onClose={() => setRemoving(null)}
        onConfirm={async () => {
          await call("DELETE", `/api/members/${enc(removing!.email)}`);
          members.reload();
        }}
      >
        <p>
          {removing?.status === "invited" ? (
            <>
              Withdraw the invitation of <strong>{removing?.email}</strong>? Its link stops working.
            </>
          ) : (
            <>
              Remove <strong>{removing?.email}</strong> from the organization? They can no longer sign in to it.
            </>
          )}
        </p>
      </Confirm>
    </>
  );
}
