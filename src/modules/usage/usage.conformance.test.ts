import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { usageTests } from "./usage.suite.js";

/** The same tests, each answer held against the reference product's description in STANDARDS_DIR. */
usageTests(STANDARDS);
