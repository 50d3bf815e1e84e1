import { Type, type Static, type TObject } from "@sinclair/typebox";
import type { Principal } from "../platform/auth.js";
import type { Services } from "../services.js";
import { badRequest } from "../platform/errors.js";
import { RESOURCE_TYPE_NAMES } from "../modules/search/shapes.js";

/**
 * The tools an agent may call (docs/mcp.md). Each one calls the same service, with the same
 * principal, as the API operation it stands for, so a tool can do no more than the key could
 * through the API: the services and `src/policies/` decide, not this file.
 */
export interface Tool<S extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** Read-only tools change nothing; an agent's host may run them without asking. */
  readOnly: boolean;
  run(services: Services, p: Principal, args: Static<S>): Promise<unknown>;
}

const tool = <S extends TObject>(t: Tool<S>): Tool<S> => t;
const IdOf = (description?: string) => Type.String({ minLength: 1, maxLength: 256, pattern: "^[^/\\u0000]+$", description });
const Id = IdOf();
const Text = (maxLength: number, description: string) => Type.String({ minLength: 1, maxLength, pattern: "^[^\\u0000]*$", description });
const Day = Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}(T[0-9:.]+(Z|[+-]\\d{2}:\\d{2}))?$", description: "A date (2026-12-31) or date-time." });

export const TOOLS: Tool[] = [
  tool({
    name: "search",
    title: "Search the catalog",
    description: "Finds data products, data contracts (by their fields too), teams, assets, definitions, tags and source systems whose words start with the query's words. Best matches first.",
    input: Type.Object({
      query: Text(1000, "Words to look for."),
      resourceType: Type.Optional(Type.Union(RESOURCE_TYPE_NAMES.map((t) => Type.Literal(t)))),
    }),
    readOnly: true,
    run: (s, p, args) => s.search.search(p, { query: args.query, resourceType: args.resourceType, offset: 0, limit: 20 }),
  }),
  tool({
    name: "get_data_product",
    title: "Read a data product",
    description: "The data product document as stored, with its output ports and the data contract of each.",
    input: Type.Object({ id: Id }),
    readOnly: true,
    run: (s, p, args) => s.dataProducts.get(p, args.id),
  }),
  tool({
    name: "get_data_contract",
    title: "Read a data contract",
    description:
      "The data contract: its document as stored (an ODCS v3.2 contract's `context` says what an agent should know before using the data: instructions, verified statements, constraints), and its models normalized (tables and fields with types).",
    input: Type.Object({ id: Id }),
    readOnly: true,
    async run(s, p, args) {
      const document = (await s.dataContracts.get(p, args.id)) as Record<string, unknown>;
      return { document, context: document.context ?? null };
    },
  }),
  tool({
    name: "list_my_accesses",
    title: "List my access requests",
    description: "The access requests the caller's teams consume (every access for an organization key), newest last, with status and whether each is active.",
    input: Type.Object({ status: Type.Optional(Type.Union([Type.Literal("requested"), Type.Literal("approved"), Type.Literal("rejected")])) }),
    readOnly: true,
    async run(s, p, args) {
      const teams = p.scope === "organization" ? [undefined] : p.teamIds;
      const lists = await Promise.all(teams.map((consumerTeamId) => s.access.list(p, { consumerTeamId, status: args.status, offset: 0, limit: 200 })));
      return lists.flatMap((l) => l.accesses);
    },
  }),
  tool({
    name: "request_access",
    title: "Request access to an output port",
    description: "Asks the provider for access to one output port of a data product, for a team (or a data product) of the caller, with a purpose. Answers the new access request; its status says whether it waits for approval.",
    input: Type.Object({
      dataProductId: Id,
      outputPortId: Id,
      purpose: Text(4000, "Why the data is needed, for the provider to judge."),
      consumerTeamId: Type.Optional(Id),
      consumerDataProductId: Type.Optional(Id),
      roles: Type.Optional(Type.Array(Text(256, "A role of the data contract."), { maxItems: 50 })),
      startDate: Type.Optional(Day),
      endDate: Type.Optional(Day),
    }),
    readOnly: false,
    async run(s, p, args) {
      const consumerTeamId = args.consumerTeamId ?? (args.consumerDataProductId === undefined && p.teamIds.length === 1 ? p.teamIds[0] : undefined);
      const consumer = args.consumerDataProductId !== undefined ? { dataProductId: args.consumerDataProductId } : { teamId: consumerTeamId };
      const body = {
        info: { purpose: args.purpose, ...(args.startDate ? { startDate: args.startDate } : {}), ...(args.endDate ? { endDate: args.endDate } : {}) },
        provider: { dataProductId: args.dataProductId, outputPortId: args.outputPortId },
        consumer,
        ...(args.roles ? { roles: args.roles } : {}),
      };
      return (await s.access.put(p, undefined, body)).access;
    },
  }),
  tool({
    name: "access_status",
    title: "Read an access request",
    description: "One access request with its status, dates, whether it is active, and its provisioning.",
    input: Type.Object({ id: Id }),
    readOnly: true,
    run: (s, p, args) => s.access.get(p, args.id),
  }),
  tool({
    name: "get_usage",
    title: "Read who used a data product or an access",
    description:
      "From the usage traces reported to Steward: how many uses are kept, and who used it (a data product, a team, or the reporting service), how often and when last, most recent first. Name either a data product or an access.",
    input: Type.Object({
      dataProductId: Type.Optional(IdOf("The data product whose uses to read.")),
      accessId: Type.Optional(IdOf("The access whose uses to read.")),
    }),
    readOnly: true,
    run(s, p, args) {
      if ((args.dataProductId === undefined) === (args.accessId === undefined)) throw badRequest("Name either dataProductId or accessId, not both and not neither.");
      return args.dataProductId !== undefined ? s.usage.ofDataProduct(p, args.dataProductId) : s.usage.ofAccess(p, args.accessId!);
    },
  }),
];
