import { NO_STANDARDS } from "../helpers/checks.js";
import { dataContractCliReplay } from "./datacontract-cli.suite.js";

dataContractCliReplay(NO_STANDARDS);
