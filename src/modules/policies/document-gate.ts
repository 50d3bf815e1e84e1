import type { EventKind } from "../../events/kinds.js";
import type { Emit } from "../../events/log.js";
import type { Principal } from "../../platform/auth.js";
import type { Clock } from "../../platform/clock.js";
import type { Executor } from "../../platform/database/index.js";
import type { Gate } from "../../policies/rules/gates.js";
import type { Document, CatalogKind } from "../catalog/document-service.js";
import { refusal, type PolicyEnforcement } from "./enforcement.js";

export interface DocumentGate<D extends Document> {
  gate: Gate;
  /** The variable the document is given to rules as (`contract`, `product`). */
  variable: string;
  /** The label of refusals, e.g. "Publishing the data contract". */
  what: string;
  /** The document's lifecycle status, wherever its format keeps it. */
  statusOf(doc: D): string | undefined;
  /** The kinds of the document's own Created and Updated events, which carry the verdicts. */
  events: EventKind[];
  /** Checks of its own before the rules (certifications on a product). */
  before?(ex: Executor, p: Principal, before: D | undefined, after: D): Promise<void>;
}

/** Statuses that publish a document: the gate applies to every write that leaves it in one. */
export const PUBLISHED = new Set(["active"]);

/**
 * A document definition whose writes pass a gate: a write that leaves the document published
 * (status `active`, any letter case) is judged by the organization's policies at `gate`; a deny
 * refuses it with 422, and warnings are carried in the Created/Updated event's `verdicts`.
 */
export function gatedDocument<D extends Document>(base: CatalogKind<D>, enforcement: PolicyEnforcement, clock: Clock, o: DocumentGate<D>): CatalogKind<D> {
  return {
    ...base,
    async gate(ex, p, before, after) {
      await o.before?.(ex, p, before, after);
      const earlier = await base.gate?.(ex, p, before, after);
      if (!PUBLISHED.has((o.statusOf(after) ?? "").toLowerCase())) return earlier;
      const input = { [o.variable]: after, previous: before ?? {}, now: clock.now().toISOString() };
      const judgement = await enforcement.judge(ex, p.organizationId, o.gate, input);
      if (judgement.denied.length > 0) throw refusal(422, o.what, judgement);
      return judgement.recorded.length > 0 ? { ...earlier, verdicts: judgement.recorded } : earlier;
    },
    emitChange(emit, id, before, after, extras) {
      const verdicts = extras?.verdicts;
      const carrying: Emit = verdicts === undefined ? emit : (kind, subject, more, comment) => emit(kind, subject, o.events.includes(kind) && subject === id ? { ...more, verdicts } : more, comment);
      base.emitChange(carrying, id, before, after, extras);
    },
  };
}
