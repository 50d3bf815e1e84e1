import type { EventExtras } from "../../events/kinds.js";
import type { Emit } from "../../events/log.js";
import { isActive } from "./lifecycle.js";
import type { AccessRecord } from "./repository.js";

/** Sets `active` for `now`, emitting Activated (with `activation`'s extras) or Deactivated; answers whether it changed. */
export function syncActive(record: AccessRecord, emit: Emit, now: string, activation?: EventExtras): boolean {
  const active = isActive(record, now);
  if (active === record.active) return false;
  record.active = active;
  if (active) emit("AccessActivatedEvent", record.id, activation);
  else emit("AccessDeactivatedEvent", record.id);
  return true;
}
