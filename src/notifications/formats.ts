import { Webhook } from "standardwebhooks";
import type { Message } from "./messages.js";

/**
 * One formatter per target, each a pure function of the message (docs/notifications.md). Text
 * from documents and people (ids, comments) is escaped for the target's markup.
 */

export interface HttpDelivery {
  headers: Record<string, string>;
  body: string;
}

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/** Slack's mrkdwn treats `&`, `<` and `>` as markup. */
const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const htmlEscape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

const json = (body: unknown): HttpDelivery => ({ headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/** A Slack incoming-webhook message: a plain-text fallback and blocks. */
export function slackMessage(m: Message): HttpDelivery {
  const blocks: unknown[] = [
    { type: "header", text: { type: "plain_text", text: m.title.slice(0, 150) } },
    { type: "section", text: { type: "mrkdwn", text: slackEscape(m.text) } },
  ];
  if (m.comment) blocks.push({ type: "section", text: { type: "mrkdwn", text: `*Comment:* ${slackEscape(m.comment)}` } });
  blocks.push({ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in Steward" }, url: m.link }] });
  return json({ text: slackEscape(`${m.title}: ${m.text}`), blocks });
}

/** A Microsoft Teams incoming-webhook message carrying an Adaptive Card. */
export function teamsMessage(m: Message): HttpDelivery {
  const body: unknown[] = [
    { type: "TextBlock", text: m.title, weight: "Bolder", size: "Medium", wrap: true },
    { type: "TextBlock", text: m.text, wrap: true },
  ];
  if (m.comment) body.push({ type: "FactSet", facts: [{ title: "Comment", value: m.comment }] });
  return json({
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body,
          actions: [{ type: "Action.OpenUrl", title: "Open in Steward", url: m.link }],
        },
      },
    ],
  });
}

/** A Google Chat incoming-webhook message with a card (cardsV2). */
export function googleChatMessage(m: Message): HttpDelivery {
  const widgets: unknown[] = [{ textParagraph: { text: htmlEscape(m.text) } }];
  if (m.comment) widgets.push({ decoratedText: { topLabel: "Comment", text: htmlEscape(m.comment), wrapText: true } });
  widgets.push({ buttonList: { buttons: [{ text: "Open in Steward", onClick: { openLink: { url: m.link } } }] } });
  return json({
    text: `${m.title}: ${m.text}`,
    cardsV2: [{ cardId: m.eventId, card: { header: { title: m.title, subtitle: m.actor }, sections: [{ widgets }] } }],
  });
}

/**
 * A `webhook` channel's delivery: the CloudEvent as JSON, signed per Standard Webhooks. The id is
 * the delivery's, the same on every attempt, so a receiver can drop what it has already seen.
 */
export type WebhookSigner = (m: Message, webhookId: string, at: Date) => HttpDelivery;

/** The signer of one channel's deliveries: its secret is decoded once, for a whole run. */
export function webhookSigner(secret: string): WebhookSigner {
  const webhook = new Webhook(secret);
  return (m, webhookId, at) => {
    const body = JSON.stringify(m.event);
    return {
      headers: {
        "content-type": "application/json",
        "webhook-id": webhookId,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": webhook.sign(webhookId, at, body),
      },
      body,
    };
  };
}

/** An e-mail with a text and an HTML part. */
export function mailMessage(m: Message): MailContent {
  const comment = m.comment ? `\n\nComment: ${m.comment}` : "";
  return {
    subject: `[Steward] ${m.title}`.replace(/[\r\n]+/g, " "),
    text: `${m.text}${comment}\n\nOpen in Steward: ${m.link}\n`,
    html:
      `<p>${htmlEscape(m.text)}</p>` +
      (m.comment ? `<p><strong>Comment:</strong> ${htmlEscape(m.comment)}</p>` : "") +
      `<p><a href="${htmlEscape(m.link)}">Open in Steward</a></p>`,
  };
}

export type HttpChannelType = "slack" | "teams" | "googlechat";

export const HTTP_FORMATS: Record<HttpChannelType, (m: Message) => HttpDelivery> = {
  slack: slackMessage,
  teams: teamsMessage,
  googlechat: googleChatMessage,
};
