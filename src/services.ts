import type { Config } from "./platform/config.js";
import type { Clock } from "./platform/clock.js";
import type { Database } from "./platform/database/index.js";
import { EventLog } from "./events/log.js";
import { FeedService } from "./events/feed.js";
import { ApiKeyService } from "./modules/api-keys/service.js";
import { OrganizationService } from "./modules/organizations/service.js";
import { DocumentService } from "./modules/catalog/document-service.js";
import { teamKind } from "./modules/teams/service.js";
import type { Team } from "./modules/teams/shapes.js";
import { connectorKind } from "./modules/connectors/service.js";
import { dataProductKind } from "./modules/dataproducts/service.js";
import type { DataProduct } from "./modules/dataproducts/shapes.js";
import { dataContractKind } from "./modules/datacontracts/service.js";
import type { DataContract } from "./modules/datacontracts/shapes.js";
import { ContractVersionService } from "./modules/datacontracts/versions/service.js";
import { AccessService } from "./modules/access/service.js";
import { accessesInUse } from "./modules/access/in-use.js";
import type { Connector } from "./modules/connectors/shapes.js";
import { PeopleService } from "./modules/people/service.js";
import { principalNames } from "./modules/people/principal-names.js";
import { SearchService } from "./modules/search/service.js";
import { LineageService } from "./modules/lineage/service.js";
import { UsageService } from "./modules/usage/service.js";
import { TestResultService } from "./modules/test-results/service.js";
import { AssetService } from "./modules/assets/service.js";
import { sourceSystemKind } from "./modules/sourcesystems/service.js";
import type { SourceSystem } from "./modules/sourcesystems/shapes.js";
import { definitionKind } from "./modules/definitions/service.js";
import type { Definition } from "./modules/definitions/shapes.js";
import { tagKind } from "./modules/tags/service.js";
import type { Tag } from "./modules/tags/shapes.js";
import { policyKind } from "./modules/policies/service.js";
import type { Policy } from "./modules/policies/shapes.js";
import { ClassificationSchemeService, classificationSchemeKind } from "./modules/classification-schemes/service.js";
import type { ClassificationScheme } from "./modules/classification-schemes/shapes.js";
import { certificationKind } from "./modules/certifications/service.js";
import { checkCertificationChanges } from "./modules/certifications/assignment.js";
import { PolicyEnforcement } from "./modules/policies/enforcement.js";
import { PolicyDryRun } from "./modules/policies/dry-run.js";
import { AccessPolicyPreview } from "./modules/policies/access-preview.js";
import { gatedDocument } from "./modules/policies/document-gate.js";
import { RuleRunner } from "./policies/rules/runner.js";
import { AccessGates } from "./modules/access/policy-gates.js";
import { contractFacts } from "./modules/datacontracts/service.js";
import { productFacts } from "./modules/dataproducts/service.js";
import type { Certification } from "./modules/certifications/shapes.js";
import { NotificationChannelService } from "./modules/notification-channels/service.js";
import { NotificationService } from "./modules/notifications/service.js";
import { NotificationEngine } from "./notifications/engine.js";
import { IdentityServices } from "./identity/services.js";
import type { DocumentLimits } from "./modules/catalog/document-limits.js";
import type { Parsing } from "./schema-formats/off-thread.js";
import { Workers } from "./workers/pool.js";

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
  policies: DocumentService<Policy>;
  classificationSchemes: DocumentService<ClassificationScheme>;
  certifications: DocumentService<Certification>;
  /** The organization's Accepted policies applied at each gate (docs/policies.md). */
  policyEnforcement: PolicyEnforcement;
  /** Trying a rule over the organization's current documents and accesses. */
  policyDryRun: PolicyDryRun;
  /** What the policies say about one access before a person decides. */
  accessPolicyPreview: AccessPolicyPreview;
  /** People of the web app: accounts, memberships, sessions. */
  people: PeopleService;
  /** Full-text search over the catalog. */
  search: SearchService;
  /** OpenLineage run events, their graph and reads without an agreement (docs/lineage.md). */
  lineage: LineageService;
  /** OpenTelemetry usage traces, their summaries and uses without an agreement (docs/lineage.md, "Usage"). */
  usage: UsageService;
  /** Team notification channels and their delivery logs. */
  notificationChannels: NotificationChannelService;
  /** People's own in-app notifications and settings. */
  notifications: NotificationService;
  /** Derives notifications from the event log and delivers them, in the background. */
  notificationEngine: NotificationEngine;
  /** Single sign-on, the group mapping, password sign-in settings (docs/identity.md). */
  identity: IdentityServices;
  /** This application's parse limits, and its worker threads for big specifications and YAML. */
  parsing: Parsing;
}

export function createServices(config: Config, database: Database, clock: Clock): Services {
  const events = new EventLog(database, config, clock, principalNames);
  // Every service is given this application's limits, never a process-wide setting.
  const limits: DocumentLimits = { documentBytes: config.limits.documentBytes, pageBytes: config.limits.pageBytes };
  const parsing: Parsing = {
    limits: { maxFields: config.limits.modelFields, maxSpecificationBytes: config.limits.specificationBytes, parseTimeoutMs: config.limits.schemaParseTimeoutMs },
    workers: new Workers({ perOrganization: config.limits.workerQueuePerOrganization }),
  };
  const apiKeys = new ApiKeyService(database, clock);
  const contractVersions = new ContractVersionService(database, clock, limits, events, parsing);
  const inUse = accessesInUse(clock);
  const policies = new DocumentService(policyKind, database, events, clock, limits);
  const policyEnforcement = new PolicyEnforcement(new RuleRunner({ timeoutMs: config.limits.ruleTimeoutMs, memoryMb: config.limits.ruleMemoryMb, maxQueue: 256 }));
  const accessGates = new AccessGates(policyEnforcement);
  const people = new PeopleService(database, clock, config);
  const access = new AccessService(database, events, clock, limits, parsing, accessGates);
  const teams = new DocumentService(teamKind({ countOpenAccesses: inUse.countForTeam }), database, events, clock, limits);
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
    teams,
    connectors: new DocumentService(connectorKind, database, events, clock, limits),
    dataProducts: new DocumentService(
      gatedDocument(dataProductKind({ checkNotInUse: inUse.checkProductNotInUse }, { maxOutputPorts: config.maxOutputPorts }), policyEnforcement, clock, {
        gate: "product.publish",
        variable: "product",
        what: "Publishing the data product",
        statusOf: (product) => productFacts(product).status,
        events: ["DataProductCreatedEvent", "DataProductUpdatedEvent"],
        before: checkCertificationChanges,
      }),
      database,
      events,
      clock,
      limits,
    ),
    contractVersions,
    dataContracts: new DocumentService(
      gatedDocument(dataContractKind({ countOpenAccesses: inUse.countForContract, versions: contractVersions }, limits, parsing), policyEnforcement, clock, {
        gate: "contract.publish",
        variable: "contract",
        what: "Publishing the data contract",
        statusOf: (contract) => contractFacts(contract).status,
        events: ["DataContractCreatedEvent", "DataContractUpdatedEvent"],
      }),
      database,
      events,
      clock,
      limits,
    ),
    access,
    assets: new AssetService(database, events, clock, limits, { maxAssignedTags: config.maxAssignedTags }),
    sourceSystems: new DocumentService(sourceSystemKind, database, events, clock, limits),
    definitions: new DocumentService(definitionKind, database, events, clock, limits),
    tags: new DocumentService(tagKind, database, events, clock, limits),
    testResults: new TestResultService(database, events, clock, limits),
    policies,
    classificationSchemes: new ClassificationSchemeService(classificationSchemeKind, database, events, clock, limits),
    certifications: new DocumentService(certificationKind, database, events, clock, limits),
    policyEnforcement,
    policyDryRun: new PolicyDryRun(database, policies, policyEnforcement, clock, limits),
    accessPolicyPreview: new AccessPolicyPreview(database, accessGates, clock),
    search: new SearchService(database, config.appUrl),
    lineage: new LineageService(database, events, clock, config.lineageRetentionDays, limits),
    usage: new UsageService(database, events, clock, config.usageRetentionDays, limits),
    notificationChannels: new NotificationChannelService(database, clock, config.outbound),
    notifications: new NotificationService(database, clock),
    notificationEngine: new NotificationEngine(database, events, config, clock),
    people,
    parsing,
    identity: new IdentityServices(database, clock, config, people, access, teams, events),
  };
}
