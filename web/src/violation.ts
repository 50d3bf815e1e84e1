import type { Static } from "@sinclair/typebox";
import type { ViolationSchema } from "../../src/platform/http/shapes.js";

/** One problem of a request, as the server's problem documents list them. */
export type Violation = Static<typeof ViolationSchema>;
