/**
 * Steward's feed consumer library: `import { FeedConsumer } from "steward/consumer"`.
 * See docs/consumers.md.
 */
export { FeedConsumer, type ConsumerLogger, type EventContext, type EventHandler, type FeedConsumerOptions, type RetryInfo } from "./consumer.js";
export { StewardClient, type FetchLike, type RequestOptions, type StewardClientOptions } from "./client.js";
export { FeedConsumerError, type FeedConsumerErrorOptions, type ProblemDetails } from "./errors.js";
export { eventKind, resourcePath, type CloudEvent, type EventData } from "./events.js";
export {
  ConnectorPositionStore,
  FilePositionStore,
  MemoryPositionStore,
  type ConnectorDocument,
  type ConnectorInfo,
  type ConnectorPositionStoreOptions,
  type PositionStore,
} from "./stores.js";
export { abortableSleep, type Sleep } from "./sleep.js";
