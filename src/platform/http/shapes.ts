import { Type, type ObjectOptions, type StringOptions, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";

/** TypeBox schemas shared by every route. */

/** One problem of a request: where it is (and, in a text, its line and column) and what is wrong. */
export const ViolationSchema = Type.Object({
  field: Type.String({ description: "Path into the request body, query or path, e.g. schema[0].specification.models[1].name" }),
  message: Type.String(),
  line: Type.Optional(Type.Integer()),
  column: Type.Optional(Type.Integer()),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: "URI naming the kind of problem." }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String({ description: "The request path the problem is about." }),
    violations: Type.Optional(Type.Array(ViolationSchema)),
  },
  { $id: "Problem", title: "Problem", description: "An RFC 9457 problem document." },
);

/** Text a database column can hold: anything but the NUL character, which PostgreSQL refuses. */
export const SafeText = (options: StringOptions = {}) => Type.String({ pattern: "^[^\\u0000]*$", ...options });

/** Client-chosen ids: 1–256 characters, no slash. */
export const ResourceId = Type.String({ minLength: 1, maxLength: 256, pattern: "^[^/\\u0000]+$" });

export const IdParams = Type.Object({ id: ResourceId });

/**
 * Whole numbers in a query string are checked as text: digits only. Coercing them instead
 * would read `1e3`, `0x10`, a blank or `Infinity` as numbers a client never meant.
 */
export const QUERY_COUNT = "^0*([1-9][0-9]{0,2}|1000)$";
/** Items per page: 1–10000, as the reference product allows (docs/product.md §3). */
export const QUERY_PAGE_SIZE = "^0*([1-9][0-9]{0,3}|10000)$";

export const PageQuery = {
  p: Type.Optional(Type.String({ pattern: "^[0-9]{1,9}$", description: "0-based page number: a whole number.", examples: ["0"] })),
  pageSize: Type.Optional(
    Type.String({ pattern: QUERY_PAGE_SIZE, description: "Items per page: a whole number from 1 to 10000; 1000 when absent.", examples: ["100"] }),
  ),
};

/** Lists whose pages also end at a byte limit (catalog documents) continue from a position. */
export const FromQuery = {
  from: Type.Optional(
    Type.String({
      pattern: "^[0-9]{1,9}$",
      description: "0-based position of the page's first item, instead of `p`: the `Link` of a page that ended at the byte limit names it.",
    }),
  ),
};

const problem = { content: { "application/problem+json": { schema: Type.Ref("Problem") } } } as const;

/** Error responses for the OpenAPI document; the error handler renders them. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  const result: Record<number, TSchema> = {};
  for (const status of [400, 401, ...statuses]) {
    result[status] = Type.Unsafe({ description: `Problem (${status})`, ...problem });
  }
  return result;
}

/** Free-form JSON object whose unknown members are kept as sent. */
export function OpenObject<T extends TProperties>(properties: T, options: ObjectOptions = {}): TObject<T> {
  return Type.Object(properties, { additionalProperties: true, ...options });
}

export const NoContent = Type.Null({ description: "No content" });
