import { type ConfigOverrides } from "../../src/platform/config.js";
import type { Clock } from "../../src/platform/clock.js";
import { type RunningServer } from "../../src/server.js";
import { type DatabaseKind, type TestDatabase } from "./databases.js";
export interface ApiResponse<T = any> {
    status: number;
    headers: Headers;
    body: T;
    text: string;
}
export interface ApiOptions {
    key?: string | null;
    headers?: Record<string, string>;
    /** Sent as is, instead of JSON-encoding `body`. */
    raw?: string;
    contentType?: string;
}
export interface TestServer {
    kind: DatabaseKind;
    url: string;
    database: TestDatabase;
    server: RunningServer;
    organizationId: string;
    /** Organization-scoped key of the organization created for the test. */
    key: string;
    api<T = any>(method: string, path: string, body?: unknown, options?: ApiOptions): Promise<ApiResponse<T>>;
    /** A second organization with its own key, for tenancy tests. */
    createOrganization(name: string): Promise<{
        organizationId: string;
        key: string;
    }>;
    close(): Promise<void>;
}
export declare function request<T = any>(baseUrl: string, method: string, path: string, body?: unknown, options?: ApiOptions): Promise<ApiResponse<T>>;
/** A real Steward on a loopback port over a fresh database, with one organization and its key. */
export declare function startTestServer(kind: DatabaseKind, overrides?: ConfigOverrides, clock?: Clock): Promise<TestServer>;
