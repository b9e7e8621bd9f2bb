export * from './registry.js';
export * from './negotiate.js';
export * from './send-gate.js';
export * from './projections.js';
export * from './projection-table.js';
export * from './defaults.js';
