import type { EventKind } from "../../events/kinds.js";
import type { Emit } from "../../events/log.js";

type CreatedName<K> = K extends `${infer N}CreatedEvent` ? N : never;
/** The names of the kinds that have `<Name>CreatedEvent`, `…UpdatedEvent` and `…DeletedEvent` (docs/events.md). */
export type ChangeEventName = CreatedName<EventKind>;

/** Which of its kind's three events a write is: no document before, created; none after, deleted; else updated. */
export function changeEvent(name: ChangeEventName, before: unknown, after: unknown): EventKind {
  return `${name}${before === undefined ? "Created" : after === undefined ? "Deleted" : "Updated"}Event` as EventKind;
}

/** A catalog kind's `emitChange` that appends only the write's own change event. */
export function emitChangeEvent(name: ChangeEventName): (emit: Emit, id: string, before: unknown, after: unknown) => void {
  return (emit, id, before, after) => emit(changeEvent(name, before, after), id);
}
