/**
 * Where executable rules are evaluated, and what each gate gives them to read (docs/policies.md).
 * A rule sees only its gate's input: the document being written, or an access with its provider
 * product, port, contract, consumer and requester, and `now` as text. Nothing else is in reach.
 */

export const GATES = ["contract.publish", "product.publish", "access.request", "access.approve", "access.activate"] as const;
export type Gate = (typeof GATES)[number];

export const EFFECTS = ["deny", "warn", "require-approvals"] as const;
export type Effect = (typeof EFFECTS)[number];

/** Longest rule text, and deepest nesting of brackets in it: bounds the parser's recursion. */
export const MAX_RULE_LENGTH = 4000;
export const MAX_NESTING = 32;
/** Most nodes a rule's syntax tree may have. */
export const MAX_NODES = 1000;

/** The type a rule's checker knows for each input variable: `map` (a JSON object, or null where noted) or `string`. */
export type InputType = "map" | "string";

export interface InputVariable {
  name: string;
  type: InputType;
  describes: string;
}

const NOW: InputVariable = { name: "now", type: "string", describes: "The server's time of the decision, ISO 8601 UTC text; `timestamp(now)` makes it a timestamp." };

const ACCESS_INPUT: InputVariable[] = [
  { name: "access", type: "map", describes: "The access as the API answers it: `id`, `info` (purpose, status, startDate, endDate, …), `provider`, `consumer`, `roles`, `tags`, `custom`." },
  { name: "product", type: "map", describes: "The provider data product's document as stored." },
  { name: "port", type: "map", describes: "The provider output port as its product describes it (for ODPS, the port object; `containsPii`, `autoApprove`, …)." },
  { name: "contract", type: "map", describes: "The data contract of the port as stored, or `{}` when the port names none." },
  { name: "consumer", type: "map", describes: "`type` (`team`, `dataproduct` or `user`), `teamId`, `dataProductId`, `userId`, and `product`: the consuming product's document, or `{}`." },
  { name: "requester", type: "map", describes: "Who is acting: `principal` (`api-key:<id>`, `user:<id>`, or `system` for the scheduler), `scope` (`organization`, `team`, or `system`), `teamIds`." },
  NOW,
];

/** The input variables of each gate. */
export const GATE_INPUTS: Record<Gate, InputVariable[]> = {
  "contract.publish": [
    { name: "contract", type: "map", describes: "The data contract being written, as sent (ODCS, or DCS 0.9)." },
    { name: "previous", type: "map", describes: "The contract as stored before this write, or `{}` for a new one." },
    NOW,
  ],
  "product.publish": [
    { name: "product", type: "map", describes: "The data product being written, as sent (ODPS, or the DPS format)." },
    { name: "previous", type: "map", describes: "The product as stored before this write, or `{}` for a new one." },
    NOW,
  ],
  "access.request": ACCESS_INPUT,
  "access.approve": ACCESS_INPUT,
  "access.activate": ACCESS_INPUT,
};

/** Every variable name any gate declares, for a rule that applies at several gates. */
export function variablesOf(gates: readonly Gate[]): Map<string, InputType> {
  const declared = new Map<string, InputType>();
  const [first, ...rest] = gates;
  if (first === undefined) return declared;
  for (const v of GATE_INPUTS[first]) {
    // A rule at several gates may read only what all of them give it.
    if (rest.every((g) => GATE_INPUTS[g].some((w) => w.name === v.name))) declared.set(v.name, v.type);
  }
  return declared;
}
