import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { tagTests } from "./tags.suite.js";

tagTests(NO_STANDARDS);
