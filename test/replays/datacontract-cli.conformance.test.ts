import { STANDARDS } from "../helpers/standards-check.js";
import { dataContractCliReplay } from "./datacontract-cli.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
dataContractCliReplay(STANDARDS);
