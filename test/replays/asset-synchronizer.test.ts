import { NO_STANDARDS } from "../helpers/checks.js";
import { assetSynchronizerReplay } from "./asset-synchronizer.suite.js";

assetSynchronizerReplay(NO_STANDARDS);
