export * from './codec/index.js';
export * from './capabilities/index.js';
export type { FrameLink, LinkHandlers } from './transport/link.js';
