import { Type } from "@sinclair/typebox";
import type { Config } from "../../platform/config.js";
import { pageWindow, sendLimitedPage } from "../../platform/http/paging.js";
import { errors, FromQuery, IdParams, NoContent, PageQuery } from "../../platform/http/shapes.js";
import { sendStored } from "../catalog/document-routes.js";
import { principalOf, type App } from "../../platform/http/types.js";
import type { TestResultService } from "./service.js";
import { LatestTestResultsSchema, TestResultsSchema } from "./shapes.js";
import { pagePath } from "../../platform/http/page-paths.js";

const tags = ["test-results"];

export function testResultRoutes(app: App, results: TestResultService, config: Config): void {
  app.post(
    "/api/test-results",
    {
      schema: {
        tags,
        summary: "Publish a test run of a data contract",
        description:
          "Takes the run `datacontract test --publish` sends, as JSON or YAML (application/yaml). Answers 200 (as data contract tools expect) with the run and a `location-html` header.",
        body: TestResultsSchema,
        response: { 200: TestResultsSchema, ...errors(403, 409, 413, 415, 422) },
      },
      config: { yamlBody: true },
    },
    async (request, reply) => {
      const { run, json } = await results.publish(principalOf(request), request.body as Record<string, unknown>);
      reply.header("location-html", config.appUrl + pagePath("test-results", run.id));
      return sendStored(reply, json);
    },
  );

  app.get(
    "/api/test-results",
    {
      schema: {
        tags,
        summary: "List published test runs, newest first",
        description: "Runs are listed without their checks and logs; read one run for those.",
        querystring: Type.Object({
          ...PageQuery,
          ...FromQuery,
          dataContractId: Type.Optional(Type.String({ description: "Only runs of this data contract." })),
          server: Type.Optional(Type.String({ description: "Only runs against this server." })),
        }),
        response: { 200: Type.Array(TestResultsSchema), ...errors() },
      },
    },
    async (request, reply) => {
      const window = pageWindow(request.query);
      const { dataContractId, server } = request.query;
      const { summaries, cut } = await results.list(principalOf(request), { dataContractId, server, offset: window.offset, limit: window.size + 1 });
      return sendStored(reply, `[${sendLimitedPage(request, reply, summaries, window, cut).join(",")}]`);
    },
  );

  app.get(
    "/api/test-results/:id",
    { schema: { tags, summary: "Read a published test run with its checks and logs", params: IdParams, response: { 200: TestResultsSchema, ...errors(404) } } },
    async (request, reply) => sendStored(reply, await results.getJson(principalOf(request), request.params.id)),
  );

  app.delete(
    "/api/test-results/:id",
    { schema: { tags, summary: "Delete a published test run", params: IdParams, response: { 204: NoContent, ...errors(403, 404) } } },
    async (request, reply) => {
      await results.delete(principalOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/api/datacontracts/:id/test-results",
    {
      schema: {
        tags,
        summary: "The latest test results of a data contract",
        description: "The newest published run, and the newest run per server.",
        params: IdParams,
        response: { 200: LatestTestResultsSchema, ...errors(404) },
      },
    },
    async (request) => results.latestOf(principalOf(request), request.params.id),
  );
}
