import { pagePath, type TestResults } from "../api.js";
import { Badge, Empty, Table, When } from "../ui.js";

const dash = <span class="muted">—</span>;

/** Published test runs of data contracts in a table, newest first (docs/product.md §8). */
export function TestRunTable({ runs, showContract }: { runs: TestResults[]; showContract: boolean }) {
  if (runs.length === 0) return <Empty>No test runs have been published.</Empty>;
  return (
    <Table columns={["Run", "Result", showContract && "Data contract", "Version", "Server"]} caption="Test runs, newest first">
      {runs.map((r) => (
        <tr key={r.id}>
          <td>
            <a href={pagePath("test-results", r.id)}>
              <When value={r.timestampEnd ?? r.timestampStart} empty={r.id} />
            </a>
          </td>
          <td data-label="Result">
            <Badge>{r.result}</Badge>
          </td>
          {showContract && (
            <td data-label="Data contract">
              <a href={pagePath("datacontracts", r.dataContractId)}>{r.dataContractId}</a>
            </td>
          )}
          <td data-label="Version">{r.dataContractVersion ?? dash}</td>
          <td data-label="Server">{r.server ?? dash}</td>
        </tr>
      ))}
    </Table>
  );
}
