import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Session } from "./api.js";

export interface SessionState {
  session: Session;
  setSession(session: Session | null): void;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside a signed-in page");
  return s;
}

/** Owners act for the whole organization; members for their teams (mirrors the server's rule for display only). */
export function canActFor(session: Session, teamId: string | null | undefined): boolean {
  return session.scope === "organization" || (!!teamId && session.teamIds.includes(teamId));
}
