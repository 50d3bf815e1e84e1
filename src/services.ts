import type { Config } from "./platform/config.js";
import type { Clock } from "./platform/clock.js";
import type { Database } from "./platform/database/index.js";
import { EventLog } from "./events/log.js";
import { FeedService } from "./events/feed.js";
import { ApiKeyService } from "./modules/api-keys/service.js";
import { OrganizationService } from "./modules/organizations/service.js";
import { DocumentService } from "./modules/shared/document-service.js";
import { teamDefinition } from "./modules/teams/service.js";
import type { Team } from "./modules/teams/shapes.js";
import { connectorDefinition } from "./modules/connectors/service.js";
import { dataProductDefinition } from "./modules/dataproducts/service.js";
import type { DataProduct } from "./modules/dataproducts/shapes.js";
import { dataContractDefinition } from "./modules/datacontracts/service.js";
import type { DataContract } from "./modules/datacontracts/shapes.js";
import { ContractVersionService } from "./modules/datacontracts/versions/service.js";
import { AccessService } from "./modules/access/service.js";
import { accessRepository } from "./modules/access/repository.js";
import { conflict } from "./platform/errors.js";
import type { Connector } from "./modules/connectors/shapes.js";
import { PeopleService } from "./modules/people/service.js";
import { TestResultService } from "./modules/test-results/service.js";
import { AssetService } from "./modules/assets/service.js";
import { sourceSystemDefinition } from "./modules/sourcesystems/service.js";
import type { SourceSystem } from "./modules/sourcesystems/shapes.js";
import { definitionDefinition } from "./modules/definitions/service.js";
import type { Definition } from "./modules/definitions/shapes.js";
import { tagDefinition } from "./modules/tags/service.js";
import type { Tag } from "./modules/tags/shapes.js";
import { IdentityServices } from "./identity/services.js";

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
  dataProducts: DocumentService<DataProduct>;
  dataContracts: DocumentService<DataContract>;
  /** Every document a contract has had, comparisons between them, and the breaking-change gate. */
  contractVersions: ContractVersionService;
  access: AccessService;
  assets: AssetService;
  sourceSystems: DocumentService<SourceSystem>;
  definitions: DocumentService<Definition>;
  tags: DocumentService<Tag>;
  testResults: TestResultService;
  /** People of the web app: accounts, memberships, sessions. */
  people: PeopleService;
  /** Single sign-on, the group mapping, password sign-in settings (docs/identity.md). */
  identity: IdentityServices;
}

export function createServices(config: Config, database: Database, clock: Clock): Services {
  const events = new EventLog(database, config, clock);
  const apiKeys = new ApiKeyService(database, clock);
  const contractVersions = new ContractVersionService(database, clock);
  const people = new PeopleService(database, clock, config);
  const access = new AccessService(database, events, clock);
  return {
    config,
    clock,
    database,
    events,
    feed: new FeedService(events, {
      holdMs: config.longPollTimeoutMs,
      maxHeld: config.longPollMaxWaiting,
      maxHeldPerOrganization: config.longPollMaxWaitingPerOrganization,
    }),
    organizations: new OrganizationService(database, clock, apiKeys),
    apiKeys,
    teams: new DocumentService(
      teamDefinition({
        countOpenAccesses: (ex, organizationId, teamId) => accessRepository.countOpenForTeam(ex, organizationId, teamId, clock.now().toISOString()),
      }),
      database,
      events,
      clock,
    ),
    connectors: new DocumentService(connectorDefinition, database, events, clock),
    dataProducts: new DocumentService(
      dataProductDefinition({
        async checkNotInUse(ex, organizationId, productId, portIds) {
          const open = await accessRepository.openForProduct(ex, organizationId, productId, clock.now().toISOString(), portIds);
          if (open.count > 0) {
            // The ports in use, and at most ten of them: a product may drop thousands at once.
            const named = open.portIds.slice(0, 10).map((id) => `'${id}'`).join(", ");
            const more = open.portIds.length > 10 ? ` and ${open.portIds.length - 10} more` : "";
            const what = portIds ? `output port(s) ${named}${more} of data product '${productId}'` : `data product '${productId}'`;
            throw conflict(`${open.count} access request(s) still use ${what}. Cancel or delete them first.`);
          }
          // A product that consumes data is the consumer side of its accesses: deleting it would
          // leave them without the team that may withdraw or cancel them.
          const consumed = portIds === undefined ? await accessRepository.countOpenConsumedBy(ex, organizationId, productId, clock.now().toISOString()) : 0;
          if (consumed > 0) throw conflict(`Data product '${productId}' consumes data through ${consumed} open access request(s). Cancel or delete them first.`);
        },
      }, { maxOutputPorts: config.maxOutputPorts }),
      database,
      events,
      clock,
    ),
    contractVersions,
    dataContracts: new DocumentService(
      dataContractDefinition({
        countOpenAccesses: (ex, organizationId, contractId) => accessRepository.countOpenForContract(ex, organizationId, contractId, clock.now().toISOString()),
        versions: contractVersions,
      }),
      database,
      events,
      clock,
    ),
    access,
    assets: new AssetService(database, events, clock, { maxAssignedTags: config.maxAssignedTags }),
    sourceSystems: new DocumentService(sourceSystemDefinition, database, events, clock),
    definitions: new DocumentService(definitionDefinition, database, events, clock),
    tags: new DocumentService(tagDefinition, database, events, clock),
    testResults: new TestResultService(database, events, clock),
    people,
    identity: new IdentityServices(database, clock, config, people, access),
  };
}
