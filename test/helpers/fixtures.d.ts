/** A document of test/fixtures/standards, as text. */
export declare function fixture(name: string): string;
/** The path of a file or folder under test/fixtures. */
export declare function fixturePath(name: string): string;
