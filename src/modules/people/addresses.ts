import { invalid } from "../../platform/errors.js";
import { MIN_PASSWORD_LENGTH } from "./passwords.js";

/** What an email address and a password must look like, wherever a person types them. */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** One account per address, whatever its spelling. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function checkEmail(email: string, field = "email"): string {
  const normalized = normalizeEmail(email);
  if (!EMAIL.test(normalized) || normalized.length > 320) throw invalid("That is not an email address.", [{ field, message: "must be an email address" }]);
  return normalized;
}

export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > 1024) {
    throw invalid("The password is too short.", [{ field: "password", message: `must have ${MIN_PASSWORD_LENGTH} to 1024 characters` }]);
  }
}
