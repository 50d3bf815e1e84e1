import type { EventRow } from "../../src/events/repository.js";
import type { TestServer } from "./server.js";

/** Appends `count` TeamUpdatedEvents (subjects `team-<n>`) to the test organization's log, 100 a transaction. */
export async function appendTeamEvents(t: TestServer, count: number): Promise<void> {
  for (let done = 0; done < count; done += 100) {
    await t.server.services.events.transaction({ organizationId: t.organizationId }, async (_trx, emit) => {
      for (let i = 0; i < Math.min(100, count - done); i++) emit("TeamUpdatedEvent", `team-${done + i}`);
    });
  }
}

/** Every event of the test organization's log, oldest first. */
export async function allEvents(t: TestServer): Promise<EventRow[]> {
  const { events } = t.server.services;
  const all: EventRow[] = [];
  for (let page = await events.readAfter(t.organizationId, 0); page.length > 0; page = await events.readAfter(t.organizationId, all.at(-1)!.seq)) {
    all.push(...page);
  }
  return all;
}

/**
 * Appends `count` events and has the server store their full batches, with their files when it has
 * a feed cache; resolves with the whole log.
 */
export async function storedLog(t: TestServer, count: number): Promise<EventRow[]> {
  await appendTeamEvents(t, count);
  await t.server.services.events.sealer.seal(t.organizationId);
  await t.server.services.events.stored.cache?.settled();
  return allEvents(t);
}
