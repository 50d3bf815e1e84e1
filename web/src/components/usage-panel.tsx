import type { Static } from "@sinclair/typebox";
import { enc, get, pagePath, withQuery } from "../api.js";
import { Empty, ErrorBox, Loading, Table, useLoad, When } from "../ui.js";
import type { UsageSummarySchema, UsageViolationsSchema } from "../../../src/modules/usage/shapes.js";

type UsageSummary = Static<typeof UsageSummarySchema>;
type UsageViolation = Static<typeof UsageViolationsSchema>[number];
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

/**
 * The uses of this product's ports by consumers without an active access, newest first, from the
 * usage traces (docs/lineage.md, "Uses without an agreement"); the counterpart of the reads
 * without an agreement that lineage finds.
 */
export function UsesWithoutAgreement({ productId }: { productId: string }) {
  const uses = useLoad(() => get<UsageViolation[]>(withQuery("/api/v1/usage/violations", { dataProductId: productId })), [productId]);
  return (
    <section aria-labelledby="uses-without-agreement">
      <h2 id="uses-without-agreement">Uses without an agreement</h2>
      <ErrorBox error={uses.error} title="The uses without an agreement could not be read" />
      {uses.loading && !uses.data && <Loading />}
      {uses.data && uses.data.length === 0 && <Empty>No reported use of this data product's output ports lacked an agreement.</Empty>}
      {uses.data && uses.data.length > 0 && (
        <Table columns={["Day", "Output port", "Consumer", "Service"]} caption="Uses without an agreement">
          {uses.data.map((u) => (
            <tr key={`${u.day} ${u.consumerType} ${u.consumerDataProductId ?? u.consumerTeamId} ${u.span.serviceName} ${u.outputPortId}`}>
              <td class="dates" data-label="Day">
                <When value={u.day} />
              </td>
              <td data-label="Output port">
                <code>{u.outputPortId}</code>
              </td>
              <td data-label="Consumer">
                {u.consumerDataProductId !== null && <a href={pagePath("dataproducts", u.consumerDataProductId)}>{u.consumerDataProductId}</a>}
                {u.consumerTeamId !== null && (
                  <div class={u.consumerDataProductId !== null ? "sub" : undefined}>
                    <a href={pagePath("teams", u.consumerTeamId)}>{u.consumerTeamId}</a>
                  </div>
                )}
              </td>
              <td data-label="Service">
                {u.span.serviceName}
                <div class="sub" title={`trace ${u.span.traceId}, span ${u.span.spanId}`}>
                  span {u.span.spanId}
                </div>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
