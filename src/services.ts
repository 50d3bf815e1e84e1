import type { Config } from "./platform/config.js";
import type { Clock } from "./platform/clock.js";
import type { Database } from "./platform/database/index.js";
import { EventLog } from "./events/log.js";
import { FeedService } from "./events/feed.js";
import { ApiKeyService } from "./modules/api-keys/service.js";
import { OrganizationService } from "./modules/organizations/service.js";
import { DocumentService } from "./modules/shared/document-service.js";
import { teamDefinition } from "./modules/teams/service.js";
import type { Team } from "./modules/teams/schemas.js";
import { connectorDefinition } from "./modules/connectors/service.js";
import type { Connector } from "./modules/connectors/schemas.js";

/** Every service, wired once. The HTTP layer, the CLI and tests all start from here. */
export interface Services {
  config: Config;
  clock: Clock;
  database: Database;
  events: EventLog;
  feed: FeedService;
  organizations: OrganizationService;
  apiKeys: ApiKeyService;
  teams: DocumentService<Team>;
  connectors: DocumentService<Connector>;
}

export function createServices(config: Config, database: Database, clock: Clock): Services {
  const events = new EventLog(database, config, clock);
  const apiKeys = new ApiKeyService(database, clock);
  return {
    config,
    clock,
    database,
    events,
    feed: new FeedService(events, config.longPollTimeoutMs, config.longPollMaxWaiting),
    organizations: new OrganizationService(database, clock, apiKeys),
    apiKeys,
    teams: new DocumentService(teamDefinition, database, events, clock),
    connectors: new DocumentService(connectorDefinition, database, events, clock),
  };
}
