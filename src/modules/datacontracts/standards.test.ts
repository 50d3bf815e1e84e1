import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { contractStandardTests } from "./standards.suite.js";

contractStandardTests(NO_STANDARDS);
