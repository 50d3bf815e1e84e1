import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { sourceSystemTests } from "./sourcesystems.suite.js";

sourceSystemTests(NO_STANDARDS);
