import { STANDARDS } from "../helpers/standards-check.js";
import { eventListenerReplay } from "./event-listener.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
eventListenerReplay(STANDARDS);
