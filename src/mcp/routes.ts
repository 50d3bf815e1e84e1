import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { FastifyReply, FastifyRequest } from "fastify";
import { presentedSecret, type Principal } from "../platform/auth.js";
import { Problem, unauthorized } from "../platform/errors.js";
import type { App } from "../platform/http/types.js";
import { VERSION } from "../platform/version.js";
import type { Services } from "../services.js";
import { TOOLS } from "./tools.js";

/** Most bytes a tool's answer may carry to an agent; a longer one is cut, and says so. */
const MAX_TOOL_ANSWER = 256 * 1024;
const CHECKS = new Map(TOOLS.map((t) => [t.name, TypeCompiler.Compile(t.input)]));

/** The answer of one tool call: its result as JSON text, or the problem that refused it. */
async function callTool(services: Services, p: Principal, name: string, args: unknown) {
  const tool = TOOLS.find((t) => t.name === name);
  const check = CHECKS.get(name);
  if (!tool || !check) throw new McpError(ErrorCode.InvalidParams, `There is no tool '${name}'.`);
  const given = args ?? {};
  if (!check.Check(given)) {
    const problems = [...check.Errors(given)].slice(0, 10).map((e) => `${e.path || "/"}: ${e.message}`);
    throw new McpError(ErrorCode.InvalidParams, `The arguments of '${name}' are not valid: ${problems.join("; ")}`);
  }
  try {
    let text = JSON.stringify(await tool.run(services, p, given as never));
    if (text.length > MAX_TOOL_ANSWER) text = `${text.slice(0, MAX_TOOL_ANSWER)}\n[cut at ${MAX_TOOL_ANSWER} characters]`;
    return { content: [{ type: "text" as const, text }] };
  } catch (error) {
    // A refusal is an answer the agent can act on, as the API's problem says it; anything else is
    // logged by the caller and reaches the agent without detail.
    if (error instanceof Problem && error.status < 500) {
      const violations = error.violations?.map((v) => `${v.field}: ${v.message}`).join("; ");
      return { content: [{ type: "text" as const, text: `${error.status}: ${error.detail}${violations ? ` (${violations})` : ""}` }], isError: true };
    }
    throw error;
  }
}

function mcpServer(services: Services, p: Principal, request: FastifyRequest): Server {
  const server = new Server({ name: "steward", version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: JSON.parse(JSON.stringify(t.input)) as { type: "object" },
      annotations: { readOnlyHint: t.readOnly, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (call) => {
    try {
      return await callTool(services, p, call.params.name, call.params.arguments);
    } catch (error) {
      if (error instanceof McpError) throw error;
      request.log.error({ err: error, tool: call.params.name }, "an MCP tool failed");
      throw new McpError(ErrorCode.InternalError, "The tool failed; the server's log says why.");
    }
  });
  return server;
}

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (docs/mcp.md), stateless: each POST is
 * answered on its own, by a server made for the key it carries. The key is checked as on `/api`.
 */
export function mcpRoutes(app: App, services: Services): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const secret = presentedSecret(request.headers);
    const principal = secret === undefined ? undefined : await services.apiKeys.authenticate(secret);
    if (!principal) throw unauthorized();
    const server = mcpServer(services, principal, request);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  };
  app.post("/mcp", { schema: { hide: true }, bodyLimit: 1024 * 1024 }, handle);
  // Stateless: no stream to open, no session to end.
  for (const method of ["GET", "DELETE"] as const) {
    app.route({
      method,
      url: "/mcp",
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .code(405)
          .header("allow", "POST")
          .type("application/problem+json")
          .send({ type: "about:blank", title: "Method Not Allowed", status: 405, detail: "This MCP endpoint is stateless: send each message with POST." }),
    });
  }
}
