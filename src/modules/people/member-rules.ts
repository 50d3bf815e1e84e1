import type { Role } from "./repository.js";

/**
 * What `PUT /api/members/{email}` does, by where the address stands in the organization, the
 * role asked for and the request's precondition header. `If-None-Match: *` means "add, never
 * change"; `If-Match: *` means "change the member I know is there". Without either, the call adds
 * or raises a role but never lowers one: re-adding someone who is an owner must not quietly take
 * their rights away. The first matching row wins.
 */
export type Standing = "none" | "invited" | "member" | "owner";
export type Precondition = "none" | "if-match" | "if-none-match";
export type MemberOutcome =
  | "invite" // a one-time invitation for the address (any earlier one stops working)
  | "keep" // nothing to change
  | "set-role" // the member's role changes
  | "exists" // 412: If-None-Match: * and the address is a member or invited
  | "missing" // 412: If-Match: * and the address is neither
  | "would-demote"; // 409: lowering an owner needs If-Match: *

type Row = { standing: Standing | "any"; role: Role | "any"; precondition: Precondition | "any"; outcome: MemberOutcome };

export const MEMBER_RULES: readonly Row[] = [
  { standing: "none", role: "any", precondition: "if-match", outcome: "missing" },
  { standing: "none", role: "any", precondition: "any", outcome: "invite" },
  { standing: "any", role: "any", precondition: "if-none-match", outcome: "exists" },
  { standing: "invited", role: "any", precondition: "any", outcome: "invite" },
  { standing: "member", role: "member", precondition: "any", outcome: "keep" },
  { standing: "member", role: "owner", precondition: "any", outcome: "set-role" },
  { standing: "owner", role: "owner", precondition: "any", outcome: "keep" },
  { standing: "owner", role: "member", precondition: "if-match", outcome: "set-role" },
  { standing: "owner", role: "member", precondition: "none", outcome: "would-demote" },
];

export function memberOutcome(standing: Standing, role: Role, precondition: Precondition): MemberOutcome {
  const row = MEMBER_RULES.find(
    (r) => (r.standing === "any" || r.standing === standing) && (r.role === "any" || r.role === role) && (r.precondition === "any" || r.precondition === precondition),
  );
  if (!row) throw new Error(`no member rule for ${standing}/${role}/${precondition}`);
  return row.outcome;
}
