/**
 * The points where a test may hold Steward's output against the official standards or the
 * reference product's description. `npm test` runs every test with NO_STANDARDS, which checks
 * nothing and reads nothing outside the repository; the conformance suite runs the same tests
 * with the checks of test/helpers/standards-check.ts.
 */
export interface StandardsCheck {
    /** Appended to a suite's title, so a report shows which run it was. */
    readonly label: string;
    /** An answer against the reference's schema for this operation (path as the description writes it) and status. */
    answer(method: string, template: string, status: number, body: unknown): void;
    /** An event's `data` against the reference's schema of its kind, e.g. `AccessActivatedEvent`. */
    eventData(kind: string, data: unknown): void;
    /** A document valid against an official standard schema, e.g. `odcs-json-schema-v3.1.0.json`. */
    valid(schemaFile: string, doc: unknown): void;
    /** A document the official standard schema refuses. */
    invalid(schemaFile: string, doc: unknown): void;
}
export declare const NO_STANDARDS: StandardsCheck;
