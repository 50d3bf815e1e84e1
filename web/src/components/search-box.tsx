import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { get, withQuery } from "../api.js";
import { navigate } from "../router.js";
import type { SearchAnswer, SearchResult } from "../../../src/modules/search/shapes.js";

/** How each kind of result is headed in the list, in the order the groups are shown. */
const GROUPS: Array<[SearchResult["resourceType"], string]> = [
  ["DATA_PRODUCT", "Data products"],
  ["DATA_CONTRACT", "Data contracts"],
  ["TEAM", "Teams"],
  ["DATA_ASSET", "Assets"],
  ["DEFINITION", "Definitions"],
  ["TAG", "Tags"],
  ["SOURCE_SYSTEM", "Source systems"],
];

/** The page of a result, as a path of this app (the answer's `url` is absolute). */
const pathOf = (r: SearchResult) => {
  const url = new URL(r.url, location.origin);
  return url.pathname + url.search;
};

/**
 * The search box of every page: `/` focuses it; results come grouped by kind as one types; the
 * arrow keys move through them, Enter opens one, Escape closes the list (docs/product.md §14).
 */
export function SearchBox() {
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState("");
  const [results, setResults] = useState<SearchResult[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [failed, setFailed] = useState(false);
  // Closing the list waits a moment after the box loses focus (a click on a result lands first);
  // focus coming back within that moment keeps it open.
  const closing = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // The / key listens from the render that shows the box, not from the frame after it: a key
  // pressed the moment the page appears would otherwise go nowhere.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable);
      if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        input.current?.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  useEffect(() => {
    const words = query.trim();
    if (words === "") {
      setResults([]);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      get<SearchAnswer>(withQuery("/api/search", { query: words, pageSize: "30" })).then(
        (answer) => {
          if (!live) return;
          setResults(answer.results);
          setFailed(false);
          setActive(0);
        },
        () => live && setFailed(true),
      );
    }, 150);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [query]);

  // Shown in groups; the arrow keys walk the same order.
  const ordered = GROUPS.flatMap(([type]) => results.filter((r) => r.resourceType === type));
  const choose = (r: SearchResult | undefined) => {
    if (!r) return;
    setOpen(false);
    setQuery("");
    input.current?.blur();
    navigate(pathOf(r));
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setOpen(true);
      setActive((i) => Math.min(i + 1, ordered.length - 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setActive((i) => Math.max(i - 1, 0));
    } else if (e.key === "Enter") {
      e.preventDefault();
      choose(ordered[active]);
    } else if (e.key === "Escape") {
      setOpen(false);
      input.current?.blur();
    }
  };
  const showing = open && query.trim() !== "";
  const optionId = (i: number) => `search-result-${i}`;
  return (
    <div class="search-box" role="search">
      <input
        ref={input}
        type="search"
        placeholder="Search  /"
        aria-label="Search the catalog"
        role="combobox"
        aria-expanded={showing}
        aria-controls="search-results"
        aria-autocomplete="list"
        aria-activedescendant={showing && ordered.length > 0 ? optionId(active) : undefined}
        value={query}
        onInput={(e) => {
          setQuery((e.target as HTMLInputElement).value);
          setOpen(true);
        }}
        onFocus={() => {
          clearTimeout(closing.current);
          setOpen(true);
        }}
        onBlur={() => {
          closing.current = setTimeout(() => setOpen(false), 150);
        }}
        onKeyDown={onKeyDown}
      />
      {showing && (
        <div class="search-results" id="search-results" role="listbox" aria-label="Search results">
          {failed ? (
            <p class="muted">Search is not available right now.</p>
          ) : ordered.length === 0 ? (
            <p class="muted">Nothing found for “{query.trim()}”.</p>
          ) : (
            GROUPS.filter(([type]) => results.some((r) => r.resourceType === type)).map(([type, label]) => (
              <div role="group" aria-label={label} key={type}>
                <h2>{label}</h2>
                {ordered.map((r, i) =>
                  r.resourceType !== type ? null : (
                    <div
                      key={`${type}:${r.id}`}
                      id={optionId(i)}
                      role="option"
                      aria-selected={i === active}
                      class={i === active ? "active" : undefined}
                      onMouseDown={(e) => {
                        e.preventDefault();
                        choose(r);
                      }}
                    >
                      <span class="result-name">{r.name}</span>
                      {r.ownerName && r.resourceType !== "TEAM" && <span class="muted"> · {r.ownerName}</span>}
                      {r.description && <span class="result-description">{r.description}</span>}
                    </div>
                  ),
                )}
              </div>
            ))
          )}
        </div>
      )}
    </div>
  );
}
