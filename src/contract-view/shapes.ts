/**
 * The contract as people read it (docs/formats.md): one normalized view of a contract of any format,
 * computed by the server and typed here, so that the web app renders it without reading formats.
 */
import { Type, type Static } from "@sinclair/typebox";

const Opt = Type.Optional;
const S = (description?: string) => Type.String(description ? { description } : {});
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
const Path = S("Where in the document it was read from: `slaProperties[0]`, `servicelevels.retention.period`.");

export const ViewRuleSchema = Type.Object(
  {
    source: Type.Union([Type.Literal("quality"), Type.Literal("dbt")], { description: "An ODCS or Data Contract Specification quality rule, or a dbt test." }),
    text: S("What the rule requires, in words: `nullValues must be 0`."),
    name: Opt(S()),
    type: Opt(S("text, library, sql or custom")),
    dimension: Opt(S()),
    severity: Opt(S()),
    description: Opt(S()),
    query: Opt(S()),
    engine: Opt(S()),
  },
  { title: "ContractViewRule" },
);

export const ViewFieldSchema = Type.Object(
  {
    path: S("The field's path inside its model: `customer.address.city`, `tags[]`."),
    name: S(),
    depth: Type.Integer({ minimum: 0 }),
    logicalType: S(),
    physicalType: S(),
    itemsType: Opt(S("The element type of an array.")),
    required: Type.Boolean(),
    primaryKey: Type.Boolean(),
    unique: Type.Boolean(),
    classification: Opt(S()),
    values: Opt(Type.Array(Scalar, { description: "Allowed values (enum, Avro symbols)." })),
    description: Opt(S()),
    ref: Opt(S("The shared type (in `definitions`) that describes this field's nested fields.")),
    constraints: Type.Array(S(), { description: "Length, pattern and precision limits, in words." }),
    rules: Type.Array(ViewRuleSchema),
  },
  { title: "ContractViewField" },
);

export const ViewModelSchema = Type.Object(
  {
    name: S(),
    kind: S(),
    description: Opt(S()),
    rules: Type.Array(ViewRuleSchema, { description: "Rules on the model as a whole (rowCount, a query, dbt model tests)." }),
    fields: Type.Array(ViewFieldSchema, { description: "Every field, nested ones after their parent (depth > 0)." }),
  },
  { title: "ContractViewModel" },
);

const RoleSchema = Type.Object({ role: S(), path: Path, access: Opt(S()), description: Opt(S()), firstLevelApprovers: Opt(S()), secondLevelApprovers: Opt(S()) }, { title: "ContractViewRole" });

export const ContractViewSchema = Type.Object(
  {
    id: S(),
    title: S("Its name, else its data product and business name, else its id."),
    format: Type.Union([Type.Literal("odcs"), Type.Literal("dcs"), Type.Literal("dcs-0.9")]),
    formatLabel: S(),
    formatVersion: Opt(S("`apiVersion` (ODCS) or `dataContractSpecification`.")),
    version: Opt(S()),
    status: Opt(S()),
    owner: Opt(S("Id of the owning team.")),
    domain: Opt(S()),
    dataProduct: Opt(S()),
    description: Opt(S()),
    tags: Type.Array(S()),
    servers: Type.Array(
      Type.Object({ name: S(), path: Path, type: Opt(S()), environment: Opt(S()), description: Opt(S()), details: Type.Record(Type.String(), Scalar), roles: Type.Array(RoleSchema) }, { title: "ContractViewServer" }),
    ),
    sla: Type.Array(
      Type.Object({ property: S(), path: Path, value: Scalar, unit: Opt(S()), element: Opt(S()), description: Opt(S()) }, { title: "ContractViewSlaProperty" }),
    ),
    roles: Type.Array(RoleSchema),
    support: Type.Array(Type.Object({ channel: S(), path: Path, url: Opt(S()), tool: Opt(S()), scope: Opt(S()), description: Opt(S()) }, { title: "ContractViewSupport" })),
    price: Opt(Type.Object({ path: Path, amount: Opt(Type.Number()), currency: Opt(S()), unit: Opt(S()), text: Opt(S()) }, { title: "ContractViewPrice" })),
    terms: Type.Array(Type.Object({ name: S(), path: Path, text: S() }, { title: "ContractViewTerm" })),
    context: Opt(
      Type.Object(
        {
          path: Path,
          instructions: Opt(S()),
          verifiedStatements: Type.Array(Type.Object({ question: S(), answer: Opt(S()) })),
          constraints: Type.Array(S()),
        },
        { title: "ContractViewContext" },
      ),
    ),
    schemas: Type.Array(
      Type.Object({ type: S("odcs, dcs, or the typed schema's kind (dbt, bigquery, jsonschema, avro, custom)."), detectedType: S(), models: Type.Array(ViewModelSchema) }, { title: "ContractViewSchema" }),
    ),
    definitions: Type.Array(ViewFieldSchema, { description: "Shared types that fields name with `ref`, each described once." }),
  },
  { title: "ContractView" },
);

export type ContractView = Static<typeof ContractViewSchema>;
export type ViewModel = Static<typeof ViewModelSchema>;
export type ViewField = Static<typeof ViewFieldSchema>;
export type ViewRule = Static<typeof ViewRuleSchema>;
