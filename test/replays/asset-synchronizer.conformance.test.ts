import { STANDARDS } from "../helpers/standards-check.js";
import { assetSynchronizerReplay } from "./asset-synchronizer.suite.js";

/** The same tests, each answer and document held against the official standards in STANDARDS_DIR. */
assetSynchronizerReplay(STANDARDS);
