export * from "./errors.js";
export { rocAuc, meanColumnAuc } from "./auc.js";
export * from "./logloss.js";
export * from "./regression.js";
export * from "./classification.js";
export * from "./ranking.js";
export * from "./text.js";
