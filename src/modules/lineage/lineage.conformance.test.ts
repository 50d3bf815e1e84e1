import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { lineageTests } from "./lineage.suite.js";

/** The same tests, each answer held against the reference product's description in STANDARDS_DIR. */
lineageTests(STANDARDS);
