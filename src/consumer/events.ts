/** The payload of an event: the id of the resource concerned, and when it happened. */
export interface EventData {
  id: string;
  /** ISO 8601 UTC with nine fractional digits. */
  timestamp: string;
  /** OutputPort events: the port that changed (`id` is its data product). */
  outputPortId?: string;
  /** Provisioning events: the access's provisioning status after the report. */
  status?: string;
  [key: string]: unknown;
}

/** One CloudEvents 1.0 envelope of the feed. */
export interface CloudEvent<D = EventData> {
  specversion: "1.0";
  /** Unique; the `lastEventId` to ask for what follows. */
  id: string;
  /** `<prefix>.<EventKind>`, e.g. `com.service.events.AccessActivatedEvent`. */
  type: string;
  source: string;
  time: string;
  /** Id of the resource concerned; equals `data.id`. */
  subject: string;
  datacontenttype: string;
  dataschema: string;
  /** Who caused the event: `api-key:<id>`, `user:<id>` or `system` (Steward and the reference product send it). */
  principal?: string;
  data: D;
}

/** The part of `type` after the last `.`: `AccessActivatedEvent`, whatever the prefix. */
export function eventKind(type: string): string {
  return type.slice(type.lastIndexOf(".") + 1);
}

const COLLECTIONS: [prefix: string, collection: string][] = [
  ["DataProduct", "dataproducts"],
  // An output port lives inside its data product, whose id is data.id.
  ["OutputPort", "dataproducts"],
  ["DataContract", "datacontracts"],
  ["Access", "access"],
  ["Team", "teams"],
];

/** `/api/<collection>/<data.id>` of the resource an event is about, or `undefined` for an unknown kind. */
export function resourcePath(event: CloudEvent<{ id: string }>): string | undefined {
  const kind = eventKind(event.type);
  const collection = COLLECTIONS.find(([prefix]) => kind.startsWith(prefix))?.[1];
  return collection && `/api/${collection}/${encodeURIComponent(event.data.id)}`;
}
