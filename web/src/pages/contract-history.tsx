import { useState } from "preact/hooks";
import { ApiError, enc, get, withQuery } from "../api.js";
import { TextDiff } from "../editor.js";
import { usePrincipalNames } from "../names.js";
import { Badge, Empty, ErrorBox, Table, useLoad, When } from "../ui.js";
import { toYaml } from "../yaml-text.js";

/**
 * A contract's earlier versions with a readable diff, and its latest test results (PRODUCT.md §8,
 * §9). Both come from routes that a server may not have yet: then the sections say so plainly.
 */

interface Version {
  n: number;
  version?: string | null;
  time?: string;
  createdAt?: string;
  principal?: string;
  principalName?: string | null;
}

interface TestRun {
  id: string;
  dataContractVersion?: string;
  result?: string;
  timestampStart?: string;
  timestampEnd?: string;
  checks?: Array<{ name?: string; result?: string; reason?: string; field?: string; model?: string }>;
}

/** null: the server has no such route. */
async function optional<T>(path: string): Promise<T | null> {
  try {
    return await get<T>(path);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 405)) return null;
    throw err;
  }
}

export function ContractHistory({ id }: { id: string }) {
  const nameOf = usePrincipalNames();
  const versions = useLoad(() => optional<Version[]>(`/api/datacontracts/${enc(id)}/versions`), [id]);
  const results = useLoad(() => optional<TestRun[]>(withQuery("/api/test-results", { dataContractId: id })), [id]);
  const [shown, setShown] = useState<{ n: number; before: string; after: string } | null>(null);
  const compare = async (n: number, newest: number) => {
    const [before, after] = await Promise.all([get(`/api/datacontracts/${enc(id)}/versions/${n}`), get(`/api/datacontracts/${enc(id)}/versions/${newest}`)]);
    setShown({ n, before: toYaml(before), after: toYaml(after) });
  };
  const list = versions.data ?? [];
  const newest = list.length ? Math.max(...list.map((v) => v.n)) : 0;
  const latestRun = results.data?.length ? results.data[results.data.length - 1] : undefined;
  return (
    <>
      <section aria-labelledby="versions">
        <h2 id="versions">Versions</h2>
        <ErrorBox error={versions.error} title="The versions could not be read" />
        {versions.data === null ? (
          <p class="muted">This Steward server keeps no earlier versions of contracts.</p>
        ) : list.length > 0 ? (
          <Table columns={["Version", "Saved", "By", ""]} caption="Versions, newest first">
            {list.map((v) => (
              <tr key={v.n}>
                <td>
                  #{v.n} {v.version && <span class="muted">({v.version})</span>}
                </td>
                <td data-label="Saved">
                  <When value={v.time ?? v.createdAt} />
                </td>
                <td data-label="By">{nameOf(v.principal, v.principalName)}</td>
                <td class="row-actions">
                  {v.n !== newest && (
                    <button type="button" class="small" onClick={() => compare(v.n, newest).catch(() => undefined)}>
                      Compare with the current version<span class="visually-hidden"> #{v.n}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        ) : (
          !versions.loading && <Empty>No versions recorded.</Empty>
        )}
        {shown && <TextDiff before={shown.before} after={shown.after} beforeLabel={`version #${shown.n}`} afterLabel={`current version #${newest}`} />}
      </section>
      <section aria-labelledby="test-results">
        <h2 id="test-results">Latest test results</h2>
        <ErrorBox error={results.error} title="The test results could not be read" />
        {results.data === null ? (
          <p class="muted">This Steward server does not record test results.</p>
        ) : latestRun ? (
          <>
            <p>
              <Badge>{latestRun.result}</Badge> <When value={latestRun.timestampEnd ?? latestRun.timestampStart} />
              {latestRun.dataContractVersion && <span class="muted"> · contract version {latestRun.dataContractVersion}</span>}
            </p>
            {latestRun.checks && latestRun.checks.length > 0 && (
              <Table columns={["Check", "Result", "Reason"]} caption="Checks of the latest test run">
                {latestRun.checks.map((c, i) => (
                  <tr key={i}>
                    <td>{c.name ?? [c.model, c.field].filter(Boolean).join(".")}</td>
                    <td data-label="Result">
                      <Badge>{c.result}</Badge>
                    </td>
                    <td data-label="Reason">{c.reason ?? <span class="muted">—</span>}</td>
                  </tr>
                ))}
              </Table>
            )}
          </>
        ) : (
          !results.loading && <Empty>No test results have been published for this contract.</Empty>
        )}
      </section>
    </>
  );
}
