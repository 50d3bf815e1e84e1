import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { listFilterTests } from "./list-filters.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
listFilterTests(STANDARDS);
