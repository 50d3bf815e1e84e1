import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { lineageTests } from "./lineage.suite.js";

lineageTests(NO_STANDARDS);
