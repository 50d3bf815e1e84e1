/** The badge tone of an event's action (Created, Approved, …), wherever events are listed: the activity page, an access's history. */
export const EVENT_TONES: Record<string, string> = { Created: "info", Requested: "warn", Approved: "ok", Activated: "ok", Provisioned: "ok", Rejected: "bad", Deleted: "bad", Canceled: "neutral", Deactivated: "neutral" };
