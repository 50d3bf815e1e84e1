import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { dataContractTests } from "./datacontracts.suite.js";

dataContractTests(NO_STANDARDS);
