import { NO_STANDARDS } from "../../test/helpers/checks.js";
import { contractFormatTests } from "./contract-formats.suite.js";

contractFormatTests(NO_STANDARDS);
