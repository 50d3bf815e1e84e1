/**
 * Whether an organization may turn password sign-in off (docs/identity.md): only when single
 * sign-on is configured and at least one of its owners has already signed in through it, so the
 * organization can never lock out its last way in.
 */
export type PasswordOffVerdict = { allowed: true } | { allowed: false; reason: "no-sso" | "no-owner-signed-in-with-sso" };

export function mayTurnOffPasswords(input: { ssoConfigured: boolean; ownersSignedInWithSso: number }): PasswordOffVerdict {
  if (!input.ssoConfigured) return { allowed: false, reason: "no-sso" };
  if (input.ownersSignedInWithSso < 1) return { allowed: false, reason: "no-owner-signed-in-with-sso" };
  return { allowed: true };
}
