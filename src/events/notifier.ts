import type { Subscription } from "../platform/database/drivers/pg-listener.js";
import type { EventLog } from "./log.js";
import { NOTIFY_CHANNEL } from "./repository.js";

/**
 * Relays PostgreSQL NOTIFYs about committed events into the log's in-process wake-ups, so a long
 * poll held by this process answers when any Steward process sharing the database commits.
 */
export function commitRelay(log: EventLog): Subscription {
  return {
    channels: [NOTIFY_CHANNEL],
    notified: (_channel, organizationId) => {
      if (organizationId) log.commits.emit(organizationId);
    },
    // Waiters re-read on wake; one spurious wake-up after a (re)connect covers anything missed meanwhile.
    connected: () => log.commits.emit("*"),
  };
}
