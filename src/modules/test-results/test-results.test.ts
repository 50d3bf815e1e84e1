import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { testResultTests } from "./test-results.suite.js";

testResultTests(NO_STANDARDS);
