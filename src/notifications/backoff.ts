/**
 * When to try a failed delivery again (docs/notifications.md): the base delay doubled per failed
 * attempt, at most an hour apart, and no retry past the window (24 hours by default) after the
 * notification was queued. Undefined: give up.
 */
export function nextAttemptAt(queuedAt: Date, failedAt: Date, attempts: number, baseMs: number, windowMs: number): Date | undefined {
  const delay = Math.min(baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40), 60 * 60 * 1000);
  const next = new Date(failedAt.getTime() + delay);
  if (next.getTime() - queuedAt.getTime() > windowMs) return undefined;
  return next;
}
