import { NO_STANDARDS } from "../helpers/checks.js";
import { eventListenerReplay } from "./event-listener.suite.js";

eventListenerReplay(NO_STANDARDS);
