import { STANDARDS } from "../../test/helpers/standards-check.js";
import { contractFormatTests } from "./contract-formats.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
contractFormatTests(STANDARDS);
