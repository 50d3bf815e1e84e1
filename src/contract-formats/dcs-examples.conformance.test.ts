import { STANDARDS } from "../../test/helpers/standards-check.js";
import { dcsExampleTests } from "./dcs-examples.suite.js";

/** The same tests, each converted example held against the official ODCS 3.1.0 schema in STANDARDS_DIR. */
dcsExampleTests(STANDARDS);
