/**
 * How Steward classifies each kind of change between two versions of a data contract
 * (docs/product.md §9; the reasoning is in docs/versions.md). A change is breaking when a party that
 * worked under the previous version can fail under the new one: a consumer whose query, type or
 * guarantee no longer holds, or a producer whose data, valid before, is no longer valid.
 */
export const CHANGE_RULES = {
  "model-removed": { breaking: true, what: "model removed" },
  "model-renamed": { breaking: true, what: "model renamed" },
  "model-added": { breaking: false, what: "model added" },
  "model-kind-changed": { breaking: false, what: "model kind changed" },
  "model-description-changed": { breaking: false, what: "model description changed" },

  "field-removed": { breaking: true, what: "field removed" },
  "field-renamed": { breaking: true, what: "field renamed" },
  "field-added-optional": { breaking: false, what: "optional field added" },
  "field-added-required": { breaking: true, what: "required field added" },
  "field-description-changed": { breaking: false, what: "field description changed" },
  "classification-changed": { breaking: false, what: "classification changed" },

  "type-changed": { breaking: true, what: "type changed incompatibly" },
  "type-widened": { breaking: false, what: "type widened" },
  "physical-type-respelled": { breaking: false, what: "physical type spelled differently" },

  "made-required": { breaking: true, what: "optional field made required" },
  "made-optional": { breaking: true, what: "required field made optional" },

  "enum-narrowed": { breaking: true, what: "allowed values narrowed" },
  "enum-widened": { breaking: false, what: "allowed values widened" },
  "length-narrowed": { breaking: true, what: "length limit narrowed" },
  "length-widened": { breaking: false, what: "length limit widened" },
  "pattern-tightened": { breaking: true, what: "pattern added or changed" },
  "pattern-removed": { breaking: false, what: "pattern removed" },
  "precision-narrowed": { breaking: true, what: "precision or scale narrowed" },
  "precision-widened": { breaking: false, what: "precision widened" },

  "primary-key-changed": { breaking: true, what: "primary key changed" },
  "unique-added": { breaking: true, what: "uniqueness required" },
  "unique-removed": { breaking: true, what: "uniqueness no longer guaranteed" },

  "quality-rule-removed": { breaking: true, what: "quality rule removed" },
  "quality-rule-changed": { breaking: true, what: "quality rule changed" },
  "quality-rule-added": { breaking: false, what: "quality rule added" },

  // Outside the models: what the rest of the document promises (docs/versions.md).
  "sla-weakened": { breaking: true, what: "service level weakened (shorter retention, higher latency, lower availability, less frequent updates)" },
  "sla-strengthened": { breaking: false, what: "service level strengthened" },
  "sla-changed": { breaking: true, what: "service level changed in a way that cannot be ordered" },
  "sla-removed": { breaking: true, what: "service level removed" },
  "sla-added": { breaking: false, what: "service level added" },
  "server-removed": { breaking: true, what: "server removed" },
  "server-changed": { breaking: true, what: "server type, environment or connection changed" },
  "server-added": { breaking: false, what: "server added" },
  "role-removed": { breaking: true, what: "role removed" },
  "role-access-changed": { breaking: true, what: "access of a role changed" },
  "role-changed": { breaking: false, what: "role's approvers or description changed" },
  "role-added": { breaking: false, what: "role added" },
  "support-removed": { breaking: false, what: "support channel removed" },
  "support-changed": { breaking: false, what: "support channel changed" },
  "support-added": { breaking: false, what: "support channel added" },
  "price-raised": { breaking: true, what: "price raised" },
  "price-changed": { breaking: true, what: "price introduced, or its currency or unit changed" },
  "price-lowered": { breaking: false, what: "price lowered or removed" },
  "terms-changed": { breaking: false, what: "description or terms changed" },
  "context-changed": { breaking: false, what: "context for readers and agents changed" },
  "member-added": { breaking: false, what: "other member added" },
  "member-removed": { breaking: false, what: "other member removed" },
  "member-changed": { breaking: false, what: "other member changed" },
} as const satisfies Record<string, { breaking: boolean; what: string }>;

export type ChangeKind = keyof typeof CHANGE_RULES;

/** One difference between two versions of a contract: in its normalized models, or elsewhere in the document. */
export interface ContractChange {
  /** Where: the model, then the field path (`orders.customer.address`, `orders.tags[]`); outside the models, the member's path in the newer document (`slaProperties[1]`, `servicelevels.retention.period`). */
  path: string;
  change: ChangeKind;
  breaking: boolean;
  before?: unknown;
  after?: unknown;
  /** One sentence for people. */
  message: string;
}
