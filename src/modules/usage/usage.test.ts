import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { usageTests } from "./usage.suite.js";

usageTests(NO_STANDARDS);
