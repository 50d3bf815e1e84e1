import type { Static } from "@sinclair/typebox";
import { enc, get } from "../api.js";
import { Empty, ErrorBox, Table, useLoad, When } from "../ui.js";
import type { UsageSummarySchema } from "../../../src/modules/usage/shapes.js";

type UsageSummary = Static<typeof UsageSummarySchema>;
type UsageConsumer = UsageSummary["consumers"][number];

const KIND: Record<UsageConsumer["type"], string> = { dataProduct: "Data product", team: "Team", service: "Service" };

function Who({ consumer }: { consumer: UsageConsumer }) {
  if (consumer.type === "dataProduct") return <a href={`/dataproducts/${enc(consumer.id)}`}>{consumer.id}</a>;
  if (consumer.type === "team") return <a href={`/teams/${enc(consumer.id)}`}>{consumer.id}</a>;
  return <span>{consumer.id}</span>;
}

/**
 * Who used a data product or an access, how often and when last, from the usage traces sent to
 * `/api/v1/traces` (docs/lineage.md, "Usage").
 */
export function UsagePanel({ of, id }: { of: "dataproducts" | "access"; id: string }) {
  const usage = useLoad(() => get<UsageSummary>(`/api/${of}/${enc(id)}/usage`), [of, id]);
  return (
    <section aria-labelledby="usage">
      <h2 id="usage">Usage</h2>
      <ErrorBox error={usage.error} title="The usage could not be read" />
      {usage.data && usage.data.consumers.length === 0 && <Empty>No use has been reported yet.</Empty>}
      {usage.data && usage.data.consumers.length > 0 && (
        <Table columns={["Who", "Kind", "Uses", "Last used"]} caption="Who used it, most recent first" class="usage">
          {usage.data.consumers.map((c) => (
            <tr key={`${c.type}:${c.id}`}>
              <td>
                <Who consumer={c} />
              </td>
              <td>{KIND[c.type]}</td>
              <td class="num">{c.count}</td>
              <td>
                <When value={c.lastUsedAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
