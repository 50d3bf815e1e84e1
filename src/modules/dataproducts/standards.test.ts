import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { productStandardTests } from "./standards.suite.js";

productStandardTests(NO_STANDARDS);
