import type { Emit } from "../../events/log.js";
import { isActive } from "./lifecycle.js";
import type { AccessRecord } from "./repository.js";

/** Sets `active` for `now`, emitting Activated or Deactivated; answers whether it changed. */
export function syncActive(record: AccessRecord, emit: Emit, now: string): boolean {
  const active = isActive(record, now);
  if (active === record.active) return false;
  record.active = active;
  emit(active ? "AccessActivatedEvent" : "AccessDeactivatedEvent", record.id);
  return true;
}
