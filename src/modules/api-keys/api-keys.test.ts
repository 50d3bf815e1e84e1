import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { apiKeyTests } from "./api-keys.suite.js";

apiKeyTests(NO_STANDARDS);
