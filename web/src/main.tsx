import { render, type ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { call, useCsrfToken, whenUnauthorized, type Session } from "./api.js";
import { match, navigate, useLocation } from "./router.js";
import { SearchBox } from "./components/search-box.js";
import { SessionContext, useSession } from "./session.js";
import { Loading } from "./ui.js";
import { InvitationPage, SignInPage } from "./pages/auth.js";
import { IdentityPage } from "./pages/identity.js";
import { DataProductList, DataProductPage } from "./pages/dataproducts.js";
import { DataProductEditor } from "./pages/dataproduct-editor.js";
import { DataContractList, DataContractPage } from "./pages/datacontracts.js";
import { ContractEditor } from "./pages/contract-editor.js";
import { TeamEditor, TeamList, TeamPage } from "./pages/teams.js";
import { AccessInbox, AccessPage } from "./pages/access.js";
import { ActivityPage } from "./pages/activity.js";
import { ApiKeysPage } from "./pages/apikeys.js";
import { MembersPage } from "./pages/members.js";
import { AssetList, AssetPage } from "./pages/assets.js";
import { DefinitionList, DefinitionPage, SourceSystemList, SourceSystemPage, TagList, TagPage } from "./pages/catalog.js";
import { CATALOG_KINDS, GOVERNANCE_KINDS } from "./components/section-nav.js";
import { TestRunList, TestRunPage } from "./pages/test-runs.js";
import { ConnectorList, ConnectorPage } from "./pages/connectors.js";
import { PolicyList, PolicyPage } from "./pages/policies.js";
import { CertificationList, CertificationPage, ClassificationSchemeList, ClassificationSchemePage } from "./pages/certifications.js";
import { NotificationBell, NotificationsPage } from "./pages/notifications.js";
import { LineagePage } from "./pages/lineage.js";
import "./styles.css";

const PUBLIC = ["/sign-in", "/setup", "/invitation"];

function App() {
  const loc = useLocation();
  const [session, setSessionState] = useState<Session | null | undefined>(undefined);

  const setSession = (s: Session | null) => {
    useCsrfToken(s?.csrfToken ?? "");
    setSessionState(s);
  };

  useEffect(() => {
    call<Session>("GET", "/auth/session").then(setSession, () => setSession(null));
    whenUnauthorized(() => setSession(null));
  }, []);

  if (PUBLIC.includes(loc.path)) {
    return loc.path === "/sign-in" ? <SignInPage onSignedIn={setSession} /> : <InvitationPage token={loc.query.get("token") ?? ""} onSignedIn={setSession} />;
  }
  if (session === undefined) return <Loading what="Loading Steward" />;
  if (session === null) {
    const next = loc.path + location.search;
    queueMicrotask(() => navigate(`/sign-in${next !== "/" ? `?next=${encodeURIComponent(next)}` : ""}`, { replace: true }));
    return null;
  }
  return (
    <SessionContext.Provider value={{ session, setSession }}>
      <Shell path={loc.path}>
        <Routes path={loc.path} />
      </Shell>
    </SessionContext.Provider>
  );
}

function Routes({ path }: { path: string }) {
  let m: Record<string, string> | null;
  if (path === "/" || path === "/dataproducts") return <DataProductList />;
  if (path === "/dataproducts/new") return <DataProductEditor />;
  if ((m = match("/dataproducts/:id/edit", path))) return <DataProductEditor id={m.id} />;
  if ((m = match("/dataproducts/:id", path))) return <DataProductPage id={m.id} />;
  if (path === "/datacontracts") return <DataContractList />;
  if (path === "/datacontracts/new") return <ContractEditor />;
  if ((m = match("/datacontracts/:id/edit", path))) return <ContractEditor id={m.id} />;
  if ((m = match("/datacontracts/:id", path))) return <DataContractPage id={m.id} />;
  if (path === "/teams") return <TeamList />;
  if (path === "/teams/new") return <TeamEditor />;
  if ((m = match("/teams/:id/edit", path))) return <TeamEditor id={m.id} />;
  if ((m = match("/teams/:id", path))) return <TeamPage id={m.id} />;
  if (path === "/access") return <AccessInbox />;
  if ((m = match("/access/:id", path))) return <AccessPage id={m.id} />;
  if (path === "/assets") return <AssetList />;
  if ((m = match("/assets/:id", path))) return <AssetPage id={m.id} />;
  if (path === "/sourcesystems") return <SourceSystemList />;
  if ((m = match("/sourcesystems/:id", path))) return <SourceSystemPage id={m.id} />;
  if (path === "/definitions") return <DefinitionList />;
  if ((m = match("/definitions/:id", path))) return <DefinitionPage id={m.id} />;
  if (path === "/tags") return <TagList />;
  if ((m = match("/tags/:id", path))) return <TagPage id={m.id} />;
  if (path === "/test-results") return <TestRunList />;
  if ((m = match("/test-results/:id", path))) return <TestRunPage id={m.id} />;
  if (path === "/connectors") return <ConnectorList />;
  if ((m = match("/connectors/:id", path))) return <ConnectorPage id={m.id} />;
  if (path === "/policies") return <PolicyList />;
  if ((m = match("/policies/:id", path))) return <PolicyPage id={m.id} />;
  if (path === "/classification-schemes") return <ClassificationSchemeList />;
  if ((m = match("/classification-schemes/:id", path))) return <ClassificationSchemePage id={m.id} />;
  if (path === "/certifications") return <CertificationList />;
  if ((m = match("/certifications/:id", path))) return <CertificationPage id={m.id} />;
  if (path === "/activity") return <ActivityPage />;
  if (path === "/lineage") return <LineagePage />;
  if (path === "/notifications") return <NotificationsPage />;
  if (path === "/settings" || path === "/settings/api-keys") return <ApiKeysPage />;
  if (path === "/settings/members") return <MembersPage />;
  if (path === "/settings/identity") return <IdentityPage />;
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>. <a href="/dataproducts">Go to the data products.</a>
      </p>
    </section>
  );
}

/** The main menu; an entry is current on the pages under each of its `sections` (its own path when none). */
const NAV: Array<{ href: string; label: string; sections?: string[] }> = [
  { href: "/dataproducts", label: "Data products" },
  { href: "/datacontracts", label: "Data contracts", sections: ["/datacontracts", "/test-results"] },
  { href: "/teams", label: "Teams" },
  { href: "/access", label: "Access" },
  { href: "/assets", label: "Catalog", sections: CATALOG_KINDS.map((k) => `/${k}`) },
  { href: "/policies", label: "Governance", sections: GOVERNANCE_KINDS.map((k) => `/${k}`) },
  { href: "/activity", label: "Activity" },
  { href: "/settings/api-keys", label: "Settings", sections: ["/settings", "/connectors"] },
];

function Shell({ path, children }: { path: string; children: ComponentChildren }) {
  const { session, setSession } = useSession();
  const current = session.organizations.find((o) => o.id === session.currentOrganizationId);
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  const section = (href: string, sections = [href]) => path === href || sections.some((s) => path === s || path.startsWith(s + "/")) || (href === "/dataproducts" && path === "/");
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/dataproducts" aria-label="Steward home">
          <img src="/favicon.svg" alt="" width="26" height="26" />
          <span>Steward</span>
        </a>
        <button type="button" class="menu-button" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
          <span aria-hidden="true">{menuOpen ? "✕" : "☰"}</span> Menu
        </button>
        <nav aria-label="Main" id="main-nav" class={menuOpen ? "open" : undefined}>
          <ul>
            {NAV.map((n) => (
              <li key={n.href}>
                <a href={n.href} aria-current={section(n.href, n.sections) ? "page" : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <SearchBox />
        <div class="account">
          {session.organizations.length > 1 ? (
            <select
              aria-label="Organization"
              class="org-switch"
              value={session.currentOrganizationId ?? ""}
              onChange={async (e) => {
                const organizationId = (e.target as HTMLSelectElement).value;
                setSession(await call<Session>("POST", "/auth/switch-organization", { organizationId }));
                navigate("/dataproducts");
              }}
            >
              {session.organizations.map((o) => (
                <option value={o.id} key={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          ) : (
            current && <span class="org-name">{current.name}</span>
          )}
          {session.currentOrganizationId !== null && <NotificationBell path={path} />}
          <span class="who" title={`${session.user.email} (${session.role ?? "no role"})`}>
            {session.user.email}
          </span>
          <button
            type="button"
            class="link"
            onClick={async () => {
              const ended = await call<{ providerSignOutUrl?: string } | null>("POST", "/auth/sign-out").catch(() => null);
              setSession(null);
              // A single sign-on session signs out at the provider too, which sends the browser back to /sign-in.
              if (ended?.providerSignOutUrl) window.location.assign(ended.providerSignOutUrl);
              else navigate("/sign-in", { replace: true });
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      {session.currentOrganizationId === null && (
        <div class="alert warn" role="status">
          You are not a member of any organization yet. Ask an owner to add you.
        </div>
      )}
      <main id="main" key={session.currentOrganizationId}>
        {session.currentOrganizationId !== null && children}
      </main>
    </>
  );
}

const root = document.getElementById("app")!;
root.textContent = "";
render(<App />, root);
