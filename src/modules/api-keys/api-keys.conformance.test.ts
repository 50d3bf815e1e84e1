import { STANDARDS } from "../../../test/helpers/standards-check.js";
import { apiKeyTests } from "./api-keys.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
apiKeyTests(STANDARDS);
