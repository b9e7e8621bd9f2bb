export * from './errors.js';
export * from './opcodes.js';
export * from './header.js';
export * from './json-limits.js';
export * from './payload.js';
export * from './deframer.js';
export * from './schemas.js';
