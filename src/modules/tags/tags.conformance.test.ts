import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { tagTests } from "./tags.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
tagTests(STANDARDS);
