import { ApiError } from "../api.js";
import { atFields } from "../words.js";

/**
 * A form's answer from the server split for showing: the problems of fields the form has, shown
 * beside them (`byField`), and the error left for the form's error box (`shown`), holding only the
 * violations no field of the form takes.
 */
export function formProblems(error: unknown, labels: Record<string, string>): { byField: Record<string, string>; shown: unknown } {
  if (!(error instanceof ApiError)) return { byField: {}, shown: error };
  const { byField, rest } = atFields(error.violations, labels);
  return { byField, shown: new ApiError(error.status, error.detail, rest, error.title) };
}
