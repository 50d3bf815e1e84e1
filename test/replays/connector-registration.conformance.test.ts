import { STANDARDS } from "../helpers/standards-check.js";
import { connectorRegistrationReplay } from "./connector-registration.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
connectorRegistrationReplay(STANDARDS);
