/**
 * Size limits of stored catalog documents (docs/product.md §1): one document, and the documents of one
 * list page. Each service is given the limits of the application it serves, so two applications in
 * one process keep their own.
 */
import { tooLarge } from "../../platform/errors.js";

export interface DocumentLimits {
  /** Largest stored document, in bytes of its JSON (DOCUMENT_LIMIT_BYTES). */
  documentBytes: number;
  /** Most bytes of documents in one list page (PAGE_LIMIT_BYTES); a page holds at least one. */
  pageBytes: number;
}

export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = { documentBytes: 4 * 1024 * 1024, pageBytes: 10 * 1024 * 1024 };

/** Throws 413 when the document's JSON text, as it would be stored, is over the limit. */
export function checkDocumentSize(label: string, json: string, limits: DocumentLimits): void {
  const bytes = Buffer.byteLength(json, "utf8");
  if (bytes > limits.documentBytes) {
    throw tooLarge(`The ${label.toLowerCase()} is ${bytes} bytes as JSON, more than the limit of ${limits.documentBytes} bytes for one stored document (DOCUMENT_LIMIT_BYTES).`);
  }
}
