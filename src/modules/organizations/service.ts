import { v7 as uuidv7 } from "uuid";
import type { Clock } from "../../platform/clock.js";
import type { Database } from "../../platform/database/index.js";
import { conflict, invalid } from "../../platform/errors.js";
import type { ApiKeyService } from "../api-keys/service.js";
import { organizationRepository } from "./repository.js";

export interface CreatedOrganization {
  organizationId: string;
  name: string;
  apiKey: string;
  apiKeyId: string;
}

export class OrganizationService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly apiKeys: ApiKeyService,
  ) {}

  /** Creates an organization with its first organization-scoped key, or answers undefined when the name is taken. */
  async createIfAbsent(name: string): Promise<CreatedOrganization | undefined> {
    const trimmed = name.trim();
    if (trimmed === "") throw invalid("An organization needs a name.", [{ field: "name", message: "must not be empty" }]);
    return this.database.db.transaction().execute(async (trx) => {
      const id = uuidv7();
      const inserted = await organizationRepository.insertIfAbsent(trx, { id, name: trimmed, created_at: this.clock.now().toISOString() });
      if (!inserted) return undefined;
      const key = await this.apiKeys.createKey(trx, id, { displayName: "Initial organization key", scope: "organization" });
      return { organizationId: id, name: trimmed, apiKey: key.key, apiKeyId: key.id };
    });
  }

  async create(name: string): Promise<CreatedOrganization> {
    const created = await this.createIfAbsent(name);
    if (!created) throw conflict(`An organization named '${name.trim()}' already exists.`);
    return created;
  }

  async exists(id: string): Promise<boolean> {
    return (await organizationRepository.findById(this.database.db, id)) !== undefined;
  }

  async any(): Promise<boolean> {
    return organizationRepository.any(this.database.db);
  }
}
