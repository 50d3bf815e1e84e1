import { get, pagePath, withQuery, type TestResults } from "../api.js";
import { useLocation } from "../router.js";
import { Badge, Empty, ErrorBox, Loading, PageHeader, Table, useLoad, When } from "../ui.js";
import { ReadOne } from "../components/catalog-parts.js";
import { Facts, Fact, IdFact } from "../components/facts.js";
import { TestRunTable } from "../components/test-run-table.js";

/**
 * Published test runs of data contracts (docs/product.md §8): what `datacontract test --publish` sends,
 * and the page its `location-html` names, with every check.
 */

const dash = <span class="muted">—</span>;

/** What a check looked at: its name, else model.field. */
const checkName = (c: NonNullable<TestResults["checks"]>[number]) => c.name ?? ([c.model, c.field].filter(Boolean).join(".") || c.type);

/** The runs, newest first; `?dataContractId=` keeps to one contract's. */
export function TestRunList() {
  const loc = useLocation();
  const contractId = loc.query.get("dataContractId") ?? "";
  const runs = useLoad(() => get<TestResults[]>(withQuery("/api/test-results", { dataContractId: contractId })), [contractId]);
  return (
    <>
      <PageHeader title="Test runs" kicker={contractId ? <a href={pagePath("datacontracts", contractId)}>{contractId}</a> : <a href="/datacontracts">Data contracts</a>}>
        <p class="lead">{contractId ? "The published test runs of this data contract, newest first." : "Test runs that data contract tools published, newest first."}</p>
      </PageHeader>
      <ErrorBox error={runs.error} />
      {runs.loading && !runs.data ? <Loading /> : <TestRunTable runs={runs.data ?? []} showContract={!contractId} />}
    </>
  );
}

export function TestRunPage({ id }: { id: string }) {
  return (
    <ReadOne<TestResults> kind="test-results" id={id}>
      {(r) => {
        const checks = r.checks ?? [];
        const logs = r.logs ?? [];
        return (
          <>
            <PageHeader title={`Test run of ${r.dataContractId}`} kicker={<a href={withQuery("/test-results", { dataContractId: r.dataContractId })}>Test runs</a>}>
              <p class="lead">
                <Badge>{r.result}</Badge> {checks.length} {checks.length === 1 ? "check" : "checks"}
              </p>
            </PageHeader>
            <Facts>
              <IdFact id={r.id} />
              <Fact label="Data contract">
                <a href={pagePath("datacontracts", r.dataContractId)}>{r.dataContractId}</a>
              </Fact>
              <Fact label="Contract version">{r.dataContractVersion}</Fact>
              <Fact label="Server">{r.server}</Fact>
              <Fact label="Data product">{r.dataProductId && <a href={pagePath("dataproducts", r.dataProductId)}>{r.dataProductId}</a>}</Fact>
              <Fact label="Started">{r.timestampStart && <When value={r.timestampStart} />}</Fact>
              <Fact label="Ended">{r.timestampEnd && <When value={r.timestampEnd} />}</Fact>
            </Facts>
            <section aria-labelledby="checks">
              <h2 id="checks">Checks</h2>
              {checks.length === 0 ? (
                <Empty>The run reported no checks.</Empty>
              ) : (
                <Table columns={["Check", "Type", "Result", "Reason"]} caption="Checks of the test run">
                  {checks.map((c, i) => (
                    <tr key={i}>
                      <td>{checkName(c)}</td>
                      <td data-label="Type">
                        <code>{c.type}</code>
                      </td>
                      <td data-label="Result">{c.result ? <Badge>{c.result}</Badge> : dash}</td>
                      <td data-label="Reason">{c.reason ?? dash}</td>
                    </tr>
                  ))}
                </Table>
              )}
            </section>
            {logs.length > 0 && (
              <section aria-labelledby="logs">
                <h2 id="logs">Log</h2>
                <Table columns={["Time", "Level", "Message"]} caption="Log of the test run">
                  {logs.map((l, i) => (
                    <tr key={i}>
                      <td>
                        <When value={l.timestamp} />
                      </td>
                      <td data-label="Level">{l.level ?? dash}</td>
                      <td data-label="Message">{l.message ?? dash}</td>
                    </tr>
                  ))}
                </Table>
              </section>
            )}
          </>
        );
      }}
    </ReadOne>
  );
}
