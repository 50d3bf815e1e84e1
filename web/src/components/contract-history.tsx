import { useState } from "preact/hooks";
import { ApiError, enc, get, withQuery, type ChangeReport, type ContractVersionSummary, type TestResults } from "../api.js";
import { usePrincipalNames } from "../names.js";
import { Badge, Empty, ErrorBox, Table, useLoad, When } from "../ui.js";
import { AffectedAccessList, ChangeList } from "./contract-changes.js";
import { TestRunTable } from "./test-run-table.js";
import { SideBySideDiff } from "./yaml-diff.js";
import { stringify as toYaml } from "yaml";

/**
 * A contract's versions with the changes between any two, and its latest test results (docs/product.md §8,
 * §9). Test results come from a route a server may not have yet: then the section says so plainly.
 */

/** null: the server has no such route. */
async function optional<T>(path: string): Promise<T | null> {
  try {
    return await get<T>(path);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 405)) return null;
    throw err;
  }
}

/** How many of its newest test runs a contract's page shows. */
const LATEST_RUNS = 5;

export function ContractHistory({ id }: { id: string }) {
  const nameOf = usePrincipalNames();
  const versions = useLoad(() => get<ContractVersionSummary[]>(`/api/datacontracts/${enc(id)}/versions`), [id]);
  // The newest few (the list is newest first); each links to its run with every check.
  const results = useLoad(() => optional<TestResults[]>(withQuery("/api/test-results", { dataContractId: id, pageSize: String(LATEST_RUNS) })), [id]);
  const [pair, setPair] = useState<{ from?: number; to?: number }>({});
  const [shown, setShown] = useState<ChangeReport | undefined>();
  const [texts, setTexts] = useState<{ before: string; after: string } | undefined>();
  const [compareError, setCompareError] = useState<unknown>();
  const list = versions.data ?? [];
  const newest = list.length ? Math.max(...list.map((v) => v.n)) : 0;
  // `?version=1.2.0` (an access's link to the version it was granted under): that version is marked and compared from.
  const wanted = new URLSearchParams(location.search).get("version");
  const granted = wanted ? list.find((v) => v.version === wanted && v.n !== newest)?.n : undefined;
  const from = pair.from ?? granted ?? (newest > 1 ? newest - 1 : undefined);
  const to = pair.to ?? newest;
  const compare = async (a: number, b: number) => {
    setCompareError(undefined);
    setShown(undefined);
    setTexts(undefined);
    try {
      const version = (n: number) => get<Record<string, unknown>>(`/api/datacontracts/${enc(id)}/versions/${n}`).then((doc) => toYaml(doc, { lineWidth: 0 }));
      const [report, before, after] = await Promise.all([get<ChangeReport>(withQuery(`/api/datacontracts/${enc(id)}/changes`, { from: String(a), to: String(b) })), version(a), version(b)]);
      setShown(report);
      setTexts({ before, after });
    } catch (err) {
      setCompareError(err);
    }
  };
  return (
    <>
      <section aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        <ErrorBox error={versions.error} title="The versions could not be read" />
        {list.length > 0 ? (
          <>
            <Table columns={["Version", "Saved", "By"]} caption="Versions, newest first">
              {list.map((v) => (
                <tr key={v.n} class={wanted && v.version === wanted ? "marked" : undefined}>
                  <td>
                    #{v.n} {v.version && <span class="muted">({v.version})</span>}
                    {wanted && v.version === wanted && <Badge tone="info">the version asked for</Badge>}{" "}
                    <a class="sub" href={`/api/datacontracts/${enc(id)}/versions/${v.n}`}>document</a>
                  </td>
                  <td data-label="Saved">
                    <When value={v.createdAt} />
                  </td>
                  <td data-label="By">{nameOf(v.principal, v.principalName)}</td>
                </tr>
              ))}
            </Table>
            {list.length > 1 && from !== undefined && (
              <form
                class="row compare"
                onSubmit={(e) => {
                  e.preventDefault();
                  void compare(from, to);
                }}
              >
                <label>
                  From{" "}
                  <VersionSelect label="Compare from version" value={from} versions={list} onChange={(n) => setPair({ from: n, to })} />
                </label>
                <label>
                  to{" "}
                  <VersionSelect label="Compare to version" value={to} versions={list} onChange={(n) => setPair({ from, to: n })} />
                </label>
                <button type="submit" class="small">
                  Show changes
                </button>
              </form>
            )}
          </>
        ) : (
          !versions.loading && <Empty>No versions recorded.</Empty>
        )}
        <ErrorBox error={compareError} title="The versions could not be compared" />
        {shown && (
          <section aria-labelledby="version-changes">
            <h3 id="version-changes">
              Changes from #{String(shown.from)} to #{String(shown.to)}
              {shown.breaking ? " (breaking)" : ""}
            </h3>
            <ChangeList changes={shown.changes} caption="Changes between the versions" />
            <AffectedAccessList accesses={shown.affectedAccesses} />
            {texts && (
              <>
                <h4>The whole document</h4>
                <SideBySideDiff before={texts.before} after={texts.after} beforeLabel={`#${String(shown.from)}`} afterLabel={`#${String(shown.to)}`} />
              </>
            )}
          </section>
        )}
      </section>
      <section aria-labelledby="test-results">
        <h2 id="test-results">Latest test results</h2>
        <ErrorBox error={results.error} title="The test results could not be read" />
        {results.data === null ? (
          <p class="muted">This Steward server does not record test results.</p>
        ) : results.data?.length ? (
          <>
            <TestRunTable runs={results.data} showContract={false} />
            <p>
              <a href={withQuery("/test-results", { dataContractId: id })}>All test runs of this contract</a>
            </p>
          </>
        ) : (
          !results.loading && <Empty>No test results have been published for this contract.</Empty>
        )}
      </section>
    </>
  );
}

/** One end of a comparison: a version by its number. */
function VersionSelect(props: { label: string; value: number; versions: ReadonlyArray<{ n: number }>; onChange: (n: number) => void }) {
  return (
    <select aria-label={props.label} value={String(props.value)} onChange={(e) => props.onChange(Number(e.currentTarget.value))}>
      {props.versions.map((v) => (
        <option key={v.n} value={String(v.n)}>
          #{v.n}
        </option>
      ))}
    </select>
  );
}
