import { useEffect, useState } from "preact/hooks";
import { idOfSegment } from "../../src/platform/http/page-paths.js";

/** A small history router: pages are chosen by path; same-origin links navigate without reloading. */

const listeners = new Set<() => void>();

/** Asked before leaving the page; false keeps the person where they are (unsaved changes). */
let leaveGuard: (() => boolean) | null = null;
let current = location.pathname + location.search;

export function setLeaveGuard(guard: (() => boolean) | null): void {
  leaveGuard = guard;
}

/** True when there is no guard or the person agreed to leave. */
export function mayLeave(): boolean {
  return !leaveGuard || leaveGuard();
}

export function navigate(to: string, options: { replace?: boolean; force?: boolean } = {}): void {
  if (!options.force && to !== current && !mayLeave()) return;
  leaveGuard = null;
  current = to;
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

window.addEventListener("popstate", () => {
  const to = location.pathname + location.search;
  if (!mayLeave()) {
    // The browser has already moved: put the page the person stays on back into the address bar.
    history.pushState(null, "", current);
    return;
  }
  leaveGuard = null;
  current = to;
  for (const l of listeners) l();
});

/** Keeps the query string in step with a page's filters, without adding history entries. */
export function replaceQuery(query: Record<string, string | undefined>): void {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const s = params.toString();
  const to = location.pathname + (s ? `?${s}` : "");
  if (to === current) return;
  current = to;
  history.replaceState(null, "", to);
}

document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest?.("a");
  if (!anchor || anchor.target || anchor.hasAttribute("download")) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/api/")) return;
  event.preventDefault();
  navigate(url.pathname + url.search + url.hash);
});

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((n) => n + 1);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return { path: location.pathname.replace(/\/+$/, "") || "/", query: new URLSearchParams(location.search) };
}

/** `/dataproducts/:id` → `{ id }` (decoded, see idSegment), or null when the path does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split("/");
  const s = path.split("/");
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(":")) {
      try {
        params[p[i].slice(1)] = idOfSegment(s[i]);
      } catch {
        return null;
      }
    } else if (p[i] !== s[i]) return null;
  }
  return params;
}
