import { NO_STANDARDS } from "../../../test/helpers/checks.js";
import { assetTests } from "./assets.suite.js";

assetTests(NO_STANDARDS);
