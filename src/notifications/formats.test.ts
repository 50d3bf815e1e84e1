import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nextAttemptAt } from "./backoff.js";
import { googleChatMessage, mailMessage, signedWebhook, slackMessage, teamsMessage } from "./formats.js";
import { composeMessage } from "./messages.js";
import { ruleFor, teamsFor } from "./rules.js";

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
    const { headers, body } = signedWebhook(message, secret, "d-1", at);
    expect(JSON.parse(body)).toEqual(message.event);
    expect(headers["webhook-id"]).toBe("d-1");
    expect(headers["webhook-timestamp"]).toBe("1767225605");
    const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64")).update(`d-1.1767225605.${body}`).digest("base64");
    expect(headers["webhook-signature"]).toBe(`v1,${expected}`);
    expect(JSON.stringify(headers) + body).not.toContain(secret.slice(6));
  });
});

describe("rules", () => {
  it("given an access event, the audience's teams, each once", () => {
    expect(teamsFor(ruleFor("AccessRequestedEvent", {})!, { providerTeamId: "p", consumerTeamId: "c" })).toEqual(["p"]);
    expect(teamsFor(ruleFor("AccessApprovedEvent", {})!, { providerTeamId: "p", consumerTeamId: "c" })).toEqual(["c"]);
    expect(teamsFor(ruleFor("AccessProvisioningFailedEvent", {})!, { providerTeamId: "p", consumerTeamId: "p" })).toEqual(["p"]);
  });

  it("a contract update notifies only when it broke compatibility", () => {
    expect(ruleFor("DataContractUpdatedEvent", { breaking: false })).toBeUndefined();
    expect(teamsFor(ruleFor("DataContractUpdatedEvent", { breaking: true })!, { contractConsumerTeamIds: ["a", "b", "a"] })).toEqual(["a", "b"]);
    expect(ruleFor("TeamCreatedEvent", {})).toBeUndefined();
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
