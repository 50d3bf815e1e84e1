import type { Transporter } from "nodemailer";
import type { MailContent } from "./formats.js";

/** Why a message could not be handed to the SMTP server, in words fit for a delivery log. */
export class MailError extends Error {
  constructor(
    message: string,
    readonly responseCode?: number,
  ) {
    super(message);
  }
}

export interface Mailer {
  send(to: readonly string[], content: MailContent): Promise<void>;
  close(): void;
}

/**
 * E-mail through the operator's SMTP server (SMTP_URL, SMTP_FROM) with nodemailer; undefined when
 * either is unset: then e-mail is off. Connecting, the greeting and every socket wait time out.
 */
export function createMailer(smtpUrl: string | undefined, from: string | undefined, timeoutMs: number): Mailer | undefined {
  if (!smtpUrl || !from) return undefined;
  // nodemailer is loaded with the first message: a server that sends none never pays for it.
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport(smtpUrl, {
        connectionTimeout: Math.max(100, Math.floor(timeoutMs / 2)),
        greetingTimeout: Math.max(100, Math.floor(timeoutMs / 2)),
        socketTimeout: timeoutMs,
        // Never write the SMTP conversation (with its credentials) to a log.
        logger: false,
        debug: false,
      } as never),
    ));
  return {
    async send(to, content) {
      try {
        await (await open()).sendMail({ from, to: [...to], subject: content.subject, text: content.text, html: content.html });
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        const kind = (error as { code?: string }).code;
        // The server's own words may quote addresses or credentials: only the codes are kept.
        throw new MailError(code ? `The mail server refused the message (${code}).` : `The message could not be sent (${kind ?? "error"}).`, code);
      }
    },
    close: () => void transport?.then((t) => t.close(), () => undefined),
  };
}
