import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { listFilterTests } from "./list-filters.suite.js";

listFilterTests(NO_STANDARDS);
