import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nextAttemptAt } from "./backoff.js";
import { googleChatMessage, mailMessage, slackMessage, teamsMessage, webhookSigner } from "./formats.js";
import { peopleFor, rulesFor, teamsFor, writerSide } from "./rules.js";
import { composeMessage, detailOf } from "./messages.js";

const message = composeMessage({
  kind: "accessRejected",
  subject: "a-1",
  actor: "ann@example.com",
  comment: "Not <yet> & not \"now\"",
  appUrl: "https://steward.example",
  time: "2026-01-01T00:00:00.000Z",
  eventId: "e-1",
  event: { specversion: "1.0", id: "e-1", type: "com.service.events.AccessRejectedEvent" },
  access: { providerDataProductId: "orders", providerOutputPortId: "main", consumer: "team 'analytics'" },
});

describe("message", () => {
  it("names the resource, who acted, their comment and a link", () => {
    expect(message.title).toBe("Access rejected: orders");
    expect(message.text).toBe("ann@example.com rejected access 'a-1' to output port 'main' of data product 'orders' for team 'analytics'.");
    expect(message.link).toBe("https://steward.example/access/a-1");
    expect(message.comment).toContain("<yet>");
  });
});

describe("formats", () => {
  it("Slack: blocks with the text escaped, the comment and a button to the link", () => {
    const body = JSON.parse(slackMessage(message).body);
    expect(body.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "Access rejected: orders" } });
    expect(body.blocks[2].text.text).toBe("*Comment:* Not &lt;yet&gt; &amp; not \"now\"");
    expect(body.blocks[3].elements[0].url).toBe("https://steward.example/access/a-1");
    expect(body.text).toContain("Access rejected: orders");
  });

  it("Teams: an Adaptive Card with an open-URL action", () => {
    const body = JSON.parse(teamsMessage(message).body);
    expect(body.type).toBe("message");
    const card = body.attachments[0];
    expect(card.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(card.content.body[0].text).toBe("Access rejected: orders");
    expect(card.content.body[2].facts[0]).toEqual({ title: "Comment", value: message.comment });
    expect(card.content.actions[0]).toMatchObject({ type: "Action.OpenUrl", url: message.link });
  });

  it("Google Chat: a cardsV2 card with the text HTML-escaped", () => {
    const body = JSON.parse(googleChatMessage(message).body);
    const card = body.cardsV2[0].card;
    expect(card.header).toEqual({ title: "Access rejected: orders", subtitle: "ann@example.com" });
    expect(card.sections[0].widgets[1].decoratedText.text).toBe("Not &lt;yet&gt; &amp; not &quot;now&quot;");
    expect(card.sections[0].widgets[2].buttonList.buttons[0].onClick.openLink.url).toBe(message.link);
  });

  it("e-mail: a subject, a text part and an HTML part with the comment escaped", () => {
    const mail = mailMessage(message);
    expect(mail.subject).toBe("[Steward] Access rejected: orders");
    expect(mail.text).toContain("Comment: Not <yet>");
    expect(mail.text).toContain("Open in Steward: https://steward.example/access/a-1");
    expect(mail.html).toContain("Not &lt;yet&gt; &amp; not &quot;now&quot;");
    expect(mail.html).toContain('<a href="https://steward.example/access/a-1">');
  });

  it("a subject never carries a line break", () => {
    expect(mailMessage({ ...message, title: "x\r\nBcc: y@example.com" }).subject).toBe("[Steward] x Bcc: y@example.com");
  });

  it("webhook: the CloudEvent signed per Standard Webhooks, checked by hand with HMAC-SHA256", () => {
    const secret = "whsec_" + Buffer.from("a secret of thirty-two bytes....").toString("base64");
    const at = new Date("2026-01-01T00:00:05.000Z");
    const { headers, body } = webhookSigner(secret)(message, "d-1", at);
    expect(JSON.parse(body)).toEqual(message.event);
    expect(headers["webhook-id"]).toBe("d-1");
    expect(headers["webhook-timestamp"]).toBe("1767225605");
    const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64")).update(`d-1.1767225605.${body}`).digest("base64");
    expect(headers["webhook-signature"]).toBe(`v1,${expected}`);
    expect(JSON.stringify(headers) + body).not.toContain(secret.slice(6));
  });
});

describe("rules", () => {
  const only = (kind: string, data: Record<string, unknown> = {}) => {
    const rules = rulesFor(kind, data);
    expect(rules).toHaveLength(1);
    return rules[0];
  };
  const verdict = (effect: string, extra: Record<string, unknown> = {}) => ({ policyId: `p-${effect}`, name: `P ${effect}`, effect, gate: "access.request", rule: "true", read: {}, ...extra });

  it("given an access event, the audience's teams, each once", () => {
    expect(teamsFor(only("AccessRequestedEvent"), { providerTeamId: "p", consumerTeamId: "c" })).toEqual(["p"]);
    expect(teamsFor(only("AccessApprovedEvent"), { providerTeamId: "p", consumerTeamId: "c" })).toEqual(["c"]);
    expect(teamsFor(only("AccessProvisioningFailedEvent"), { providerTeamId: "p", consumerTeamId: "p" })).toEqual(["p"]);
  });

  it("a contract update notifies only when it broke compatibility, its consuming teams and persons", () => {
    expect(rulesFor("DataContractUpdatedEvent", { breaking: false })).toEqual([]);
    const rule = only("DataContractUpdatedEvent", { breaking: true });
    expect(teamsFor(rule, { contractConsumerTeamIds: ["a", "b", "a"] })).toEqual(["a", "b"]);
    expect(peopleFor(rule, { contractConsumerTeamIds: ["a"], contractConsumerUserIds: ["u1", "u2"] })).toEqual(["u1", "u2"]);
    expect(rulesFor("TeamCreatedEvent", {})).toEqual([]);
  });

  it("a proposed breaking change tells the contract's consumers, naming the version and the first changes", () => {
    const rule = only("DataContractChangeProposedEvent", {});
    expect(rule).toMatchObject({ kind: "breakingChangeProposed", audience: ["contractConsumers"] });
    const changes = Array.from({ length: 7 }, (_, i) => ({ path: `t.c${i}`, change: "field-removed", message: "Field removed." }));
    expect(detailOf("breakingChangeProposed", { proposal: { version: "2.0.0", breakingChanges: changes, breakingCount: 60 } })).toBe(
      `Proposed as version 2.0.0, not stored yet: 60 breaking changes (${changes.slice(0, 5).map((c) => `${c.path}: ${c.message}`).join("; ")}; and 55 more).`,
    );
  });

  it("an access a person consumes tells the person; a team's access tells no one beside the team", () => {
    expect(peopleFor(only("AccessApprovedEvent"), { consumerTeamId: null, consumerUserId: "u1" })).toEqual(["u1"]);
    expect(peopleFor(only("AccessRequestedEvent"), { providerTeamId: "p", consumerUserId: "u1" })).toEqual([]);
  });

  it("a request a policy holds asks the approvers instead, and a recorded approval short of enough asks them again", () => {
    const rule = only("AccessRequestedEvent", { verdicts: [verdict("require-approvals", { count: 2 })] });
    expect(rule.kind).toBe("approvalsNeeded");
    expect(teamsFor(rule, { providerTeamId: "p", consumerTeamId: "c", approverTeamIds: ["risk", "p"] })).toEqual(["p", "risk"]);
    expect(only("AccessApprovalRecordedEvent", { approvals: { given: 1, needed: 2 } }).kind).toBe("approvalsNeeded");
    expect(rulesFor("AccessApprovalRecordedEvent", { approvals: { given: 2, needed: 2 } })).toEqual([]);
  });

  it("a warning goes to the writer's team beside the event's own notification", () => {
    const rules = rulesFor("AccessRequestedEvent", { verdicts: [verdict("warn")] });
    expect(rules.map((r) => r.kind)).toEqual(["accessRequested", "policyWarning"]);
    expect(teamsFor(rules[1], { providerTeamId: "p", writerTeamId: "c" })).toEqual(["c"]);
    expect(only("DataContractCreatedEvent", { verdicts: [verdict("warn")] }).kind).toBe("policyWarning");
    expect(rulesFor("DataProductUpdatedEvent", { verdicts: [verdict("deny")] })).toEqual([]);
    expect([writerSide("AccessRequestedEvent"), writerSide("AccessApprovedEvent"), writerSide("DataContractUpdatedEvent")]).toEqual(["consumer", "provider", "owner"]);
  });

  it("a read without an access tells the provider, naming the run, job and dataset", () => {
    const data = { outputPortId: "pg", violation: { consumerDataProductId: "campaigns", consumerTeamId: "c", job: { namespace: "dbt", name: "daily" }, runId: "r-1", dataset: { namespace: "postgres://db", name: "shop.orders" } } };
    const rule = only("AccessViolationDetectedEvent", data);
    expect(teamsFor(rule, { providerTeamId: "p" })).toEqual(["p"]);
    const message = composeMessage({ kind: rule.kind, subject: "orders", actor: "lineage key", comment: null, appUrl: "https://s.test", time: "t", eventId: "e", event: {}, resource: "dataProduct", detail: detailOf(rule.kind, data) });
    expect(message.text).toBe(
      "lineage key reported a read without an active access of data product 'orders'. Run 'r-1' of job 'dbt/daily' read dataset 'postgres://db/shop.orders' of output port 'pg' for data product 'campaigns'.",
    );
    expect(message.link).toBe("https://s.test/dataproducts/orders");
  });

  it("a use without an access, reported by a span, names the service, the consuming team and the span", () => {
    const data = { outputPortId: "pg", violation: { consumerDataProductId: null, consumerTeamId: "c", span: { traceId: "t1", spanId: "s1", serviceName: "bi-gateway" } } };
    const rule = only("AccessViolationDetectedEvent", data);
    const message = composeMessage({ kind: rule.kind, subject: "orders", actor: "usage key", comment: null, appUrl: "https://s.test", time: "t", eventId: "e", event: {}, resource: "dataProduct", detail: detailOf(rule.kind, data) });
    expect(message.text).toBe("usage key reported a read without an active access of data product 'orders'. Service 'bi-gateway' used output port 'pg' for team 'c' (trace 't1', span 's1').");
  });
});

describe("back-off", () => {
  const queued = new Date("2026-01-01T00:00:00Z");
  it("doubles the delay per attempt, at most an hour apart", () => {
    expect(nextAttemptAt(queued, queued, 1, 1000, 86_400_000)?.toISOString()).toBe("2026-01-01T00:00:01.000Z");
    expect(nextAttemptAt(queued, queued, 3, 1000, 86_400_000)?.toISOString()).toBe("2026-01-01T00:00:04.000Z");
    expect(nextAttemptAt(queued, queued, 30, 1000, 86_400_000)?.toISOString()).toBe("2026-01-01T01:00:00.000Z");
  });
  it("gives up past the window", () => {
    const late = new Date("2026-01-01T23:30:00Z");
    expect(nextAttemptAt(queued, late, 30, 1000, 86_400_000)).toBeUndefined();
  });
});
