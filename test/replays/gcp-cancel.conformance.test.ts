import { STANDARDS } from "../helpers/standards-check.js";
import { gcpCancelReplay } from "./gcp-cancel.suite.js";

/** The same tests, each answer held against the reference description in STANDARDS_DIR. */
gcpCancelReplay(STANDARDS);
