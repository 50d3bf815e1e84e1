import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASES } from "../../test/helpers/databases.js";
import { seedOwners, WRITE } from "../../test/helpers/every-kind.js";
import { startTestServer, type TestServer } from "../../test/helpers/server.js";
import { ensureWebBuilt } from "../../test/e2e/fixtures.js";
import { ROOT } from "../../test/helpers/cli.js";
import { idOfSegment, idSegment, PAGE_KINDS, pagePath, withPlainDotIds } from "../platform/http/page-paths.js";

/** Ids that a plain percent-encoding turns into a link to another page, or into no path at all. */
const AWKWARD_IDS = ["plain-id", ".", "..", "...", "a b?c#d%e\\f&g=h;i", "Ünïcode ✓", "index-abc123.js"];

describe("page paths", () => {
  it("keep every id as one segment that URL parsers leave alone, and read it back", () => {
    for (const id of [...AWKWARD_IDS, "Governance/PII", "x/.."]) {
      const url = new URL(`http://steward.test${pagePath("tags", id)}`);
      const segments = url.pathname.split("/");
      expect(segments.length, id).toBe(3);
      expect(segments[1]).toBe("tags");
      expect(idOfSegment(segments[2]), id).toBe(id);
    }
    expect(pagePath("teams", "..")).toBe("/teams/%2F..");
    expect(pagePath("teams", "\ud800x")).toBe("/teams/%EF%BF%BDx");
  });

  it("turn escaped dot ids back into plain segments for the router, nothing else", () => {
    expect(withPlainDotIds("/api/teams/%2F..")).toBe("/api/teams/..");
    expect(withPlainDotIds("/api/assets/%2f./assigned-tags/x?q=%2F..")).toBe("/api/assets/./assigned-tags/x?q=%2F..");
    expect(withPlainDotIds("/api/tags/x%2F..")).toBe("/api/tags/x%2F..");
    expect(withPlainDotIds("/api/teams/%2F...")).toBe("/api/teams/%2F...");
  });
});

describe.each(DATABASES)("location-html names a page of the web app (%s)", (kind) => {
  let t: TestServer;
  let index: string;
  beforeAll(async () => {
    await ensureWebBuilt();
    index = readFileSync(join(ROOT, "dist/web/index.html"), "utf8");
    t = await startTestServer(kind);
    await seedOwners(t);
  }, 60_000);
  afterAll(() => t?.close());

  /** Follows a location-html as a browser would: the URL parsed, on this server. */
  const open = async (locationHtml: string) => {
    const url = new URL(locationHtml);
    expect(url.origin).toBe("http://steward.test");
    const res = await fetch(t.url + url.pathname + url.search);
    return { url, res, body: await res.text() };
  };

  it.each(PAGE_KINDS)("for every write of %s, whatever the id", async (pageKind) => {
    // Tags refuse `.` and `..` as ids (docs/security.md, "Tags"); every other kind takes them.
    for (const id of AWKWARD_IDS.filter((i) => pageKind !== "tags" || (i !== "." && i !== ".."))) {
      const written = await WRITE[pageKind](t, id, `A ${pageKind} named ${id}`);
      expect(written.status, `${pageKind} ${id}: ${written.text}`).toBe(200);
      const { url, res, body } = await open(written.headers.get("location-html")!);
      // The page of this resource: its kind, then exactly its id.
      const segments = url.pathname.split("/");
      expect(segments.slice(0, 2), `${pageKind} ${id}`).toEqual(["", pageKind]);
      expect(segments.length).toBe(3);
      expect(idOfSegment(segments[2])).toBe(id);
      expect(res.status, `${url.pathname}`).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(body).toBe(index);
      // The API reads the resource under the same escaped id the web app uses.
      expect((await t.api("GET", `/api/${pageKind}/${idSegment(id)}`)).body.id).toBe(id);
    }
  });

  it("names the same page for a tag with a / in its id", async () => {
    const written = await WRITE.tags(t, "Governance/PII", "");
    const { url, res } = await open(written.headers.get("location-html")!);
    expect(url.pathname).toBe("/tags/Governance%2FPII");
    expect(res.status).toBe(200);
  });

  it("serves the build files apart from the pages, so /assets/<id> is always an asset's page", async () => {
    const script = /src="(\/static\/[^"]+\.js)"/.exec(index)?.[1];
    expect(script).toBeDefined();
    const built = await fetch(t.url + script);
    expect(built.status).toBe(200);
    expect(built.headers.get("cache-control")).toContain("immutable");
    expect(built.headers.get("content-type")).toMatch(/^text\/javascript/);
    const page = await fetch(t.url + script!.replace("/static/", "/assets/"));
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(index);
  });
});
