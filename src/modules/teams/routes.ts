import { Type } from "@sinclair/typebox";
import type { Config } from "../../platform/config.js";
import type { App } from "../../platform/http/types.js";
import type { DocumentService } from "../catalog/document-service.js";
import { documentRoutes } from "../catalog/document-routes.js";
import { TeamSchema, type Team } from "./shapes.js";

export function teamRoutes(app: App, teams: DocumentService<Team>, config: Config): void {
  documentRoutes(app, {
    plural: "teams",
    noun: "team",
    tag: "teams",
    schema: TeamSchema,
    service: teams,
    config,
    filters: {
      email: Type.Optional(Type.String({ maxLength: 320, description: "Only teams with a direct member of this email address (any letter case)." })),
    },
    toFilter: (q) => ({ memberEmail: q.email }),
  });
}
