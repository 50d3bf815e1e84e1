import { NO_STANDARDS } from "../helpers/checks.js";
import { gcpCancelReplay } from "./gcp-cancel.suite.js";

gcpCancelReplay(NO_STANDARDS);
