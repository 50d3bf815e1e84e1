import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { testResultTests } from "./test-results.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
testResultTests(STANDARDS);
