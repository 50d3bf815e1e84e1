import { NO_STANDARDS } from "../../test/helpers/checks.js";
import { dcsExampleTests } from "./dcs-examples.suite.js";

dcsExampleTests(NO_STANDARDS);
