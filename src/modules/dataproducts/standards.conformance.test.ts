import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { productStandardTests } from "./standards.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
productStandardTests(STANDARDS);
