/**
 * How Steward classifies each kind of change between two versions of a data contract
 * (PRODUCT.md §9; the reasoning is in docs/versions.md). A change is breaking when a party that
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
} as const satisfies Record<string, { breaking: boolean; what: string }>;

export type ChangeKind = keyof typeof CHANGE_RULES;

/** One difference between two versions of a contract's normalized models. */
export interface ContractChange {
  /** Where: the model, then the field path (`orders.customer.address`, `orders.tags[]`). */
  path: string;
  change: ChangeKind;
  breaking: boolean;
  before?: unknown;
  after?: unknown;
  /** One sentence for people. */
  message: string;
}
