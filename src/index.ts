export * from './codec/index.js';
export * from './capabilities/registry.js';
