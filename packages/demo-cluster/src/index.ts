/**
 * The demo cluster's public face (docs/ARCHITECTURE.md, "Boundaries"): its launcher, its JSON line and ground truth, a
 * client of its control API, and the fault contract. Everything else in this package is the simulation itself, which only
 * its own tests reach (through `@allocation-lens/demo-cluster/internal/*`).
 */
export { launchDemo, demoCommand, demoEntry, hasSourceTree, type LaunchOptions, type LaunchedDemo } from "./contract/launcher";
export { controlClient, ControlError, type ControlAnswer, type ControlTarget, type DemoControl } from "./contract/client";
export { SCENARIOS, type ScenarioName, type DemoInfo, type RealTaStartup, type TaInfo, type Truth, type TruthTarget, type TruthCollector, type FaultApplied, type ActiveFaults, type Healed } from "./contract/info";
export { FAULT_NAMES, faultSchema, parseFault, type Fault, type FaultName } from "./contract/faults";
