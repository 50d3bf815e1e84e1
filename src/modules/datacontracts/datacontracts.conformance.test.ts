import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { dataContractTests } from "./datacontracts.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
dataContractTests(STANDARDS);
