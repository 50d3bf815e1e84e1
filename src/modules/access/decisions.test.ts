import { describe, expect, it } from "vitest";
import * as decide from "./decisions.js";
import { PROVISIONING_TRANSITIONS } from "./lifecycle.js";
import type { AccessRecord } from "./repository.js";

/** The lifecycle's decisions as given / when / then, without HTTP or a database (docs/product.md §5). */

const CREATED = "2026-04-01T00:00:00.000Z";
const NOW = "2026-05-01T12:00:00.000Z";
const LATER = "2026-06-01T00:00:00.000Z";

function given(over: Partial<AccessRecord> = {}): AccessRecord {
  return {
    organizationId: "org",
    id: "a1",
    status: "requested",
    canceledAt: null,
    active: false,
    startAt: null,
    endAt: null,
    providerDataProductId: "orders",
    providerOutputPortId: "pg",
    providerProductRowId: 1,
    consumerType: "team",
    consumerDataProductId: null,
    consumerRowId: 2,
    requestedProviderTeamId: "sales",
    requestedConsumerTeamId: "marketing",
    providerTeamId: "sales",
    consumerTeamId: "marketing",
    doc: { info: { purpose: "reporting" }, provider: { dataProductId: "orders", outputPortId: "pg" }, consumer: { teamId: "marketing" } } as AccessRecord["doc"],
    provisioning: null,
    createdAt: CREATED,
    updatedAt: CREATED,
    ...over,
  };
}

const kinds = (d: decide.Decision) => d.events.map((e) => e.kind);

describe("a new request", () => {
  it("given a request, when nothing approves it at once, then it is created and requested, inactive", () => {
    const d = decide.create(given(), { approvedAtOnce: false, requested: { status: "held" } }, CREATED);
    expect(kinds(d)).toEqual(["AccessCreatedEvent", "AccessRequestedEvent"]);
    expect(d.events[1].extras).toEqual({ status: "held" });
    expect(d.record).toMatchObject({ status: "requested", active: false });
  });

  it("given a request of the providing team, when approved at once, then it is approved and active", () => {
    const d = decide.create(given(), { approvedAtOnce: true }, CREATED);
    expect(kinds(d)).toEqual(["AccessCreatedEvent", "AccessRequestedEvent", "AccessApprovedEvent", "AccessActivatedEvent"]);
    expect(d.record).toMatchObject({ status: "approved", active: true });
  });

  it("given a request starting later, when approved at once, then it waits inactive for its start", () => {
    const d = decide.create(given({ startAt: LATER }), { approvedAtOnce: true }, CREATED);
    expect(kinds(d)).toEqual(["AccessCreatedEvent", "AccessRequestedEvent", "AccessApprovedEvent"]);
    expect(d.record.active).toBe(false);
  });
});

describe("approving and rejecting", () => {
  it("given a requested access, when approved with a comment, then it is approved, active and stamped", () => {
    const before = given();
    const d = decide.approve(before, { comment: "ok" }, NOW);
    expect(d.events).toEqual([{ kind: "AccessApprovedEvent", comment: "ok" }, { kind: "AccessActivatedEvent" }]);
    expect(d.record).toMatchObject({ status: "approved", active: true, updatedAt: NOW });
    expect(before).toMatchObject({ status: "requested", active: false, updatedAt: CREATED });
  });

  it("given a requested access, when rejected, then it is rejected and never active", () => {
    const d = decide.reject(given(), {}, NOW);
    expect(d.events).toEqual([{ kind: "AccessRejectedEvent" }]);
    expect(d.record).toMatchObject({ status: "rejected", active: false, updatedAt: NOW });
  });
});

describe("cancelling", () => {
  const active = given({ status: "approved", active: true });

  it("given an active access, when canceled without a date, then it ends now and deactivates", () => {
    const d = decide.cancel(active, { endAt: null, comment: "done" }, NOW);
    expect(d.events).toEqual([{ kind: "AccessCanceledEvent", comment: "done" }, { kind: "AccessDeactivatedEvent" }]);
    expect(d.record).toMatchObject({ endAt: NOW, canceledAt: NOW, active: false });
    expect(d.record.doc.info.endDate).toBe(NOW);
  });

  it("given an active access, when canceled at a later date, then it stays active until then", () => {
    const d = decide.cancel(active, { endAt: LATER, endDate: "2026-06-01" }, NOW);
    expect(kinds(d)).toEqual(["AccessCanceledEvent"]);
    expect(d.record).toMatchObject({ endAt: LATER, canceledAt: NOW, active: true });
    expect(d.record.doc.info.endDate).toBe("2026-06-01");
  });

  it("given an access ending soon, when canceled later than its end, then its end does not move", () => {
    const d = decide.cancel(given({ status: "approved", active: true, endAt: "2026-05-02T00:00:00.000Z" }), { endAt: LATER }, NOW);
    expect(d.record.endAt).toBe("2026-05-02T00:00:00.000Z");
  });

  it("given a canceled access, when canceled again, then the first cancellation's instant stays", () => {
    const d = decide.cancel(given({ status: "approved", active: true, canceledAt: CREATED, endAt: LATER }), { endAt: null }, NOW);
    expect(d.record.canceledAt).toBe(CREATED);
  });

  it("given the consuming person was deprovisioned, then only an approved access not yet canceled ends", () => {
    expect(kinds(decide.endForPerson(active, NOW)!)).toEqual(["AccessCanceledEvent", "AccessDeactivatedEvent"]);
    expect(decide.endForPerson(given(), NOW)).toBeUndefined();
    expect(decide.endForPerson(given({ status: "approved", canceledAt: CREATED, endAt: LATER }), NOW)).toBeUndefined();
  });
});

describe("the clock", () => {
  it("given an approved access whose start has come, when refreshed, then it activates", () => {
    const d = decide.refresh(given({ status: "approved", startAt: CREATED }), NOW);
    expect(kinds(d)).toEqual(["AccessActivatedEvent"]);
    expect(d.record.updatedAt).toBe(NOW);
  });

  it("given an active access whose end has passed, when refreshed, then it deactivates", () => {
    expect(kinds(decide.refresh(given({ status: "approved", active: true, endAt: CREATED }), NOW))).toEqual(["AccessDeactivatedEvent"]);
  });

  it("given an access already in step with the clock, when refreshed, then nothing happens", () => {
    const before = given({ status: "approved", active: true });
    expect(decide.refresh(before, NOW)).toEqual({ record: before, events: [] });
  });

  it("given a start that came and the access.activate gate refusing, when refreshed, then it stays inactive, says so once and waits to try again", () => {
    const refused = { refused: true, extras: { verdicts: [] } };
    const first = decide.refresh(given({ status: "approved", startAt: CREATED }), NOW, refused);
    expect(kinds(first)).toEqual(["AccessActivationRefusedEvent"]);
    expect(first.record).toMatchObject({ active: false, activationRetryAt: new Date(Date.parse(NOW) + decide.ACTIVATION_RETRY_MS).toISOString() });
    const again = decide.refresh(first.record, LATER, refused);
    expect(kinds(again)).toEqual([]);
    expect(again.record.activationRetryAt).toBe(new Date(Date.parse(LATER) + decide.ACTIVATION_RETRY_MS).toISOString());
  });

  it("given a refused activation, when the gate lets it through later, then it activates with the verdicts and no retry is pending", () => {
    const before = given({ status: "approved", startAt: CREATED, activationRetryAt: NOW });
    const d = decide.refresh(before, LATER, { refused: false, extras: { verdicts: [] } });
    expect(d.events).toEqual([{ kind: "AccessActivatedEvent", extras: { verdicts: [] } }]);
    expect(d.record).toMatchObject({ active: true, activationRetryAt: null, updatedAt: LATER });
  });
});

describe("terms, deletion and provisioning", () => {
  it("given a refused activation, when a PUT changes the dates, then it is judged anew at once", () => {
    const before = given({ status: "approved", startAt: LATER, activationRetryAt: NOW });
    const d = decide.update(before, { doc: before.doc, startAt: CREATED, endAt: null, activation: { verdicts: [] } }, NOW);
    expect(d.events).toEqual([{ kind: "AccessUpdatedEvent" }, { kind: "AccessActivatedEvent", extras: { verdicts: [] } }]);
    expect(d.record.activationRetryAt).toBeNull();
  });

  it("given an approved access, when a PUT moves its end into the past, then it is updated and deactivates", () => {
    const before = given({ status: "approved", active: true });
    const doc = { ...before.doc, info: { ...before.doc.info, endDate: CREATED } };
    const d = decide.update(before, { doc, startAt: null, endAt: CREATED }, NOW);
    expect(kinds(d)).toEqual(["AccessUpdatedEvent", "AccessDeactivatedEvent"]);
    expect(d.record).toMatchObject({ doc, endAt: CREATED, active: false, updatedAt: NOW });
  });

  it("given an active access, when deleted, then it deactivates before it is deleted", () => {
    expect(decide.remove(given({ active: true })).map((e) => e.kind)).toEqual(["AccessDeactivatedEvent", "AccessDeletedEvent"]);
    expect(decide.remove(given()).map((e) => e.kind)).toEqual(["AccessDeletedEvent"]);
  });

  it("given an approved access, when a connector reports success, then the record says provisioned and when", () => {
    const d = decide.reportProvisioning(given({ status: "approved", active: true }), { transition: PROVISIONING_TRANSITIONS["provisioning-succeeded"], report: { platform: "postgres", executor: undefined } }, NOW);
    expect(d.record.provisioning).toEqual({ platform: "postgres", status: "provisioned", provisionedAt: NOW, updatedAt: NOW });
    expect(d.events).toEqual([{ kind: "AccessProvisionedEvent", extras: { status: "provisioned", platform: "postgres" } }]);
  });

  it("given a provisioned access, when the same status is put again, then the record changes but no event is appended", () => {
    const before = given({ status: "approved", active: true, provisioning: { status: "provisioned" } });
    const same = decide.putProvisioning(before, { provisioning: { status: "provisioned", reference: "g1" } }, NOW);
    expect(same.events).toEqual([]);
    expect(same.record.provisioning).toEqual({ status: "provisioned", reference: "g1", updatedAt: NOW });
    const failed = decide.putProvisioning(before, { provisioning: { status: "deprovisioning-failed" } }, NOW);
    expect(failed.events).toEqual([{ kind: "AccessDeprovisioningFailedEvent", extras: { status: "deprovisioning-failed" } }]);
  });
});
