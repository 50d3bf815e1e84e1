import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { OpenObject, ResourceId } from "../../platform/http/shapes.js";

const Text = (description?: string) => Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], ...(description ? { description } : {}) }));

/** Data contract tools report more outcomes than the reference lists (info, skipped). */
const RESULTS = ["passed", "warning", "failed", "error", "info", "skipped", "unknown"];
export const TestResult = Type.Unsafe<string>({ type: "string", enum: RESULTS, description: RESULTS.join(", ") + "." });

/** A list that tools send as null when empty; one schema, so a wrong item is one violation. */
const NullableList = <T extends TSchema>(items: T) => Type.Optional(Type.Unsafe<Array<Static<T>> | null>({ type: ["array", "null"], items }));

export const TestCheckSchema = OpenObject(
  {
    type: Type.String({ description: "What kind of check ran, e.g. schema or field_unique." }),
    name: Text("What was checked, in words."),
    result: Type.Optional(Type.Unsafe<string | null>({ type: ["string", "null"], enum: [...RESULTS, null] })),
    engine: Text(),
    model: Text("The model (table) checked."),
    field: Text("The field (column) checked."),
    reason: Text("Why it did not pass."),
    details: Text(),
  },
  { title: "TestCheck" },
);

const TestLogSchema = OpenObject({ level: Text(), message: Text(), timestamp: Text() }, { title: "TestLog" });

export const TestResultsSchema = OpenObject(
  {
    id: Type.Optional(ResourceId),
    runId: Text("The run's id as data contract tools send it; becomes `id` when `id` is absent."),
    dataContractId: ResourceId,
    dataContractVersion: Text(),
    server: Text("The server the checks ran against, as named in the contract."),
    dataProductId: Text(),
    outputPortId: Text(),
    timestampStart: Text("ISO 8601 date-time."),
    timestampEnd: Text("ISO 8601 date-time."),
    result: TestResult,
    checks: NullableList(TestCheckSchema),
    logs: NullableList(TestLogSchema),
  },
  { title: "TestResults", description: "One published run of a data contract's tests. Unknown members are kept as sent." },
);

export type TestResults = Static<typeof TestResultsSchema> & { id: string };

export const LatestTestResultsSchema = Type.Object(
  {
    dataContractId: Type.String(),
    latest: Type.Union([OpenObject({}), Type.Null()], { description: "The newest run, without checks and logs; null when none was published." }),
    servers: Type.Array(
      Type.Object({
        server: Type.Union([Type.String(), Type.Null()]),
        id: Type.String({ description: "Id of the newest run against this server." }),
        result: Type.String(),
        publishedAt: Type.String({ format: "date-time" }),
      }),
      { description: "The newest run per server." },
    ),
  },
  { title: "LatestTestResults" },
);
