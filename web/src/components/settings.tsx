import { useSession } from "../session.js";

/** Tabs of the organization settings. */
export function SettingsNav({ current }: { current: "api-keys" | "members" | "connectors" | "identity" }) {
  const { session } = useSession();
  const org = session.organizations.find((o) => o.id === session.currentOrganizationId);
  return (
    <>
      <p class="kicker">Organization settings · {org?.name}</p>
      <nav class="subnav" aria-label="Organization settings">
        <a href="/settings/api-keys" aria-current={current === "api-keys" ? "page" : undefined}>
          API keys
        </a>
        <a href="/settings/members" aria-current={current === "members" ? "page" : undefined}>
          Members
        </a>
        <a href="/settings/identity" aria-current={current === "identity" ? "page" : undefined}>
          Sign-in
        </a>
        <a href="/connectors" aria-current={current === "connectors" ? "page" : undefined}>
          Connectors
        </a>
        <a href="/teams">Teams</a>
      </nav>
    </>
  );
}

export function OwnersOnly() {
  return (
    <div class="alert warn" role="status">
      <strong>Owners only</strong>
      <p>Only owners of the organization manage its API keys, members and connectors. Ask one of them.</p>
    </div>
  );
}
