import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { assetTests } from "./assets.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
assetTests(STANDARDS);
