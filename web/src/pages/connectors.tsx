import { get, type Connector } from "../api.js";
import { useSession } from "../session.js";
import { Empty, ErrorBox, Loading, PageHeader, Table, useLoad } from "../ui.js";
import { NameCell, ReadOne, ValuesSection } from "../components/catalog-parts.js";
import { Facts, Fact, IdFact } from "../components/facts.js";
import { OwnersOnly, SettingsNav } from "../components/settings.js";

/**
 * The connectors registered with the organization and the state they keep between runs (their
 * feed position): organization settings, readable by owners only, as the API has it.
 */

export function ConnectorList() {
  const { session } = useSession();
  const owner = session.scope === "organization";
  const connectors = useLoad(() => (owner ? get<Connector[]>("/api/connectors") : Promise.resolve([])), [owner]);
  return (
    <>
      <SettingsNav current="connectors" />
      <PageHeader title="Connectors">
        <p class="lead">Programs that act on Steward's events, such as granting the access it approves. They register here through the API.</p>
      </PageHeader>
      {!owner ? (
        <OwnersOnly />
      ) : (
        <>
          <ErrorBox error={connectors.error} />
          {connectors.loading && !connectors.data ? (
            <Loading />
          ) : connectors.data?.length === 0 ? (
            <Empty>No connectors have registered.</Empty>
          ) : (
            <Table columns={["Connector", "Type", "Last event processed"]} caption="Connectors of the organization">
              {connectors.data?.map((c) => (
                <tr key={c.id}>
                  <NameCell kind="connectors" id={c.id} description={c.info.description} />
                  <td data-label="Type">{c.info.type}</td>
                  <td data-label="Last event processed">{c.state?.lastEventId ? <code>{c.state.lastEventId}</code> : <span class="muted">none yet</span>}</td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </>
  );
}

export function ConnectorPage({ id }: { id: string }) {
  const { session } = useSession();
  if (session.scope !== "organization") {
    return (
      <>
        <SettingsNav current="connectors" />
        <OwnersOnly />
      </>
    );
  }
  return (
    <ReadOne<Connector> kind="connectors" id={id}>
      {(c) => {
        const { lastEventId, ...kept } = c.state ?? {};
        return (
          <>
            <SettingsNav current="connectors" />
            <PageHeader title={c.id} kicker={<a href="/connectors">Connectors</a>}>
              {c.info.description && <p class="lead">{c.info.description}</p>}
            </PageHeader>
            <Facts>
              <IdFact id={c.id} />
              <Fact label="Type">{c.info.type}</Fact>
              <Fact label="Version">{c.info.connectorVersion}</Fact>
              <Fact label="Last event processed">{lastEventId ? <code>{lastEventId}</code> : <span class="muted">none yet</span>}</Fact>
            </Facts>
            <ValuesSection title="State" id="state" values={kept} />
            <ValuesSection title="Custom properties" id="custom" values={c.custom} />
          </>
        );
      }}
    </ReadOne>
  );
}
