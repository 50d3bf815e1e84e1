/** Words for each kind, in the settings and the list. */
export const KIND_LABELS: Record<string, string> = {
  accessRequested: "Access requested from my team",
  accessApproved: "My team's access approved",
  accessRejected: "My team's access rejected",
  accessCanceled: "My team's access canceled",
  provisioningFailed: "Provisioning failed",
  breakingChange: "Breaking change to a contract my team uses",
  accessEndingSoon: "An access of my team ends within a week",
  reassessmentDue: "An access of my team is due for reassessment",
  approvalsNeeded: "An access my team may approve needs approvals",
  policyWarning: "A policy warned about my team's change",
  accessViolation: "A run read my team's data without an access",
  breakingChangeProposed: "Breaking change proposed to a contract my team uses",
};
