import { NO_STANDARDS } from "../helpers/checks.js";
import { connectorRegistrationReplay } from "./connector-registration.suite.js";

connectorRegistrationReplay(NO_STANDARDS);
